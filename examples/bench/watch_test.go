package bench_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/examples/bench"
	"github.com/kapi-dev/kapi/examples/widgets/api"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// The watch fan-out scenario: W watchers over loopback HTTP follow the
// benchmark Widgets while E updates arrive at a steady rate. Each update
// carries the time it was sent in an annotation; each watcher reads
// newline-delimited JSON, checks that the events come in strictly
// increasing resourceVersion order and records, per event, the delay from
// the sending of the write to its receipt. Every watcher must receive
// exactly the E acknowledged writes, in order, and the server must have
// encoded no event: each JSON stream frames the stored bytes itself, with
// nothing to encode and no copy of the object kept per change (the
// cache's watch.Counters says how many encodings it made).

// sentAnnotation holds the Unix time in nanoseconds an update was sent.
const sentAnnotation = "bench.kapi.dev/sent"

const sentMarker = "__SENT__"

// fanOutTemplate is the benchmark Widget (the one -bench.widget selects)
// with holes for its name, its resourceVersion and the sent time. It is
// made on first use, once the flags are parsed.
var fanOutTemplate = sync.OnceValue(func() template {
	w := selectedWidget()(nameMarker)
	w.ResourceVersion = rvMarker
	w.Annotations[sentAnnotation] = sentMarker
	b, err := json.Marshal(w)
	if err != nil {
		panic(err)
	}
	return newTemplate(b, nameMarker, rvMarker, sentMarker)
})

type fanOut struct {
	watchers int
	events   int
	rate     float64 // updates per second
}

func (c fanOut) String() string {
	return fmt.Sprintf("watchers=%d/events=%d/rate=%g", c.watchers, c.events, c.rate)
}

const (
	fanOutObjects = 100 // the Widgets the updates cycle through
	fanOutWriters = 50  // each owns the objects i with i%writers == its number
)

// watchFixture is a Widget server whose watch cache counts its
// encodings, served on loopback, with fanOutObjects Widgets.
type watchFixture struct {
	srv  *httptest.Server
	hc   *http.Client
	ctr  *watch.Counters
	rvs  []string // of each object, as last written
	last int64    // the greatest resourceVersion written
}

func newWatchFixture(tb testing.TB, watchers int) *watchFixture {
	rules, err := cel.New(cel.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	s := apiserver.New(apiserver.Options{Storage: memory.New(memory.Options{}), RuleEngine: rules})
	f := &watchFixture{ctr: s.WatchCounters(), rvs: make([]string, fanOutObjects)}
	s.Register(api.WidgetKind()).Register(api.GadgetKind())
	if err := s.Err(); err != nil {
		tb.Fatal(err)
	}
	conns := watchers + fanOutWriters
	if *useHTTP2 {
		// As client-go talks to a TLS server: one transport, HTTP/2,
		// every watch a stream of the connections it keeps.
		f.srv, f.hc = startHTTP2(s, conns)
	} else {
		f.srv = httptest.NewServer(s)
		f.hc = &http.Client{Transport: &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, DisableCompression: true}}
	}
	tb.Cleanup(func() {
		f.hc.CloseIdleConnections()
		f.srv.Close()
	})
	for i := range fanOutObjects {
		w, err := json.Marshal(selectedWidget()(bench.Name("watched", i)))
		if err != nil {
			tb.Fatal(err)
		}
		code, body, err := f.send("POST", bench.CollectionPath, w)
		if err != nil || code != http.StatusCreated {
			tb.Fatalf("create: %d %v %.200s", code, err, body)
		}
		rv, err := f.written(i, body)
		if err != nil {
			tb.Fatal(err)
		}
		f.last = max(f.last, rv)
	}
	return f
}

func (f *watchFixture) send(method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(method, f.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// written records the resourceVersion of object i from a write's answer
// and returns it.
func (f *watchFixture) written(i int, body []byte) (int64, error) {
	rv, ok := resourceVersionOf(body)
	if !ok {
		return 0, fmt.Errorf("no resourceVersion in %.200s", body)
	}
	f.rvs[i] = rv
	return strconv.ParseInt(rv, 10, 64)
}

// fanOutResult is what one run measured.
type fanOutResult struct {
	lat       histogram // delivery delays of every event at every watcher
	max       time.Duration
	writeTime time.Duration // from the first update sent to the last acknowledged
	deliver   time.Duration // from the first update sent to the last receipt
	encodings int64
	reads     int           // the watchers' reads, all together
	cpu       time.Duration // the process's CPU time (server and harness) over the run
}

// watcherState is one watcher's view of a run.
type watcherState struct {
	body  io.ReadCloser
	reads int // reads from the stream that returned bytes
	n     int
	last  int64
	hash  uint64
	lat   histogram
	max   time.Duration
	end   time.Time
	err   error
}

func mix(h uint64, rv int64) uint64 { return (h^uint64(rv))*0x100000001b3 + 1 }

// run opens the watchers, sends the updates and waits until every watcher
// has every event or the wait times out.
func (f *watchFixture) run(cfg fanOut) (fanOutResult, error) {
	var res fanOutResult
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ws, err := f.openWatchers(ctx, cfg.watchers)
	if err != nil {
		return res, err
	}
	encodings := f.ctr.Encodings()
	cpu := processCPU()
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.read(cfg.events)
		}()
	}
	start := time.Now()
	acks, err := f.update(start, cfg)
	res.writeTime = time.Since(start)
	if err != nil {
		return res, err
	}
	readers := make(chan struct{})
	go func() {
		wg.Wait()
		close(readers)
	}()
	select {
	case <-readers:
	case <-time.After(30*time.Second + 2*res.writeTime):
		cancel() // the readers fail with what they had
		<-readers
	}
	res.encodings = f.ctr.Encodings() - encodings
	res.cpu = processCPU() - cpu
	slices.Sort(acks)
	var want uint64
	for _, rv := range acks {
		want = mix(want, rv)
	}
	for i, w := range ws {
		if w.err != nil {
			return res, fmt.Errorf("watcher %d: %v", i, w.err)
		}
		if w.hash != want {
			return res, fmt.Errorf("watcher %d received other events than the %d acknowledged writes", i, len(acks))
		}
		res.lat.add(&w.lat)
		res.max = max(res.max, w.max)
		res.reads += w.reads
		res.deliver = max(res.deliver, w.end.Sub(start))
	}
	return res, nil
}

// openWatchers starts n watches from the last written revision and
// returns once the server has answered each of them.
func (f *watchFixture) openWatchers(ctx context.Context, n int) ([]*watcherState, error) {
	ws := make([]*watcherState, n)
	errs := make(chan error, n)
	sem := make(chan struct{}, 32)
	url := f.srv.URL + bench.CollectionPath + "?watch=1&resourceVersion=" + strconv.FormatInt(f.last, 10)
	var wg sync.WaitGroup
	for i := range ws {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
			if err != nil {
				errs <- err
				return
			}
			resp, err := f.hc.Do(req)
			if err != nil {
				errs <- err
				return
			}
			if resp.StatusCode != http.StatusOK {
				resp.Body.Close()
				errs <- fmt.Errorf("watch: %s", resp.Status)
				return
			}
			ws[i] = &watcherState{body: resp.Body}
		}()
	}
	wg.Wait()
	close(errs)
	return ws, errors.Join(slices.Collect(func(yield func(error) bool) {
		for err := range errs {
			if !yield(err) {
				return
			}
		}
	})...)
}

// The keys the readers look for start with a letter, not a quote: a
// quote is so frequent in JSON that searching for one checked nearly every
// byte, and the search took 13% of the benchmark's CPU.
var (
	modifiedPrefix = []byte(`{"type":"MODIFIED",`)
	rvKey          = []byte(`resourceVersion":"`)
	sentKey        = []byte(sentAnnotation + `":"`)
)

// read takes want events from the stream, then closes it.
func (w *watcherState) read(want int) {
	defer w.body.Close()
	br := bufio.NewReaderSize(readCounter{w.body, &w.reads}, 32<<10)
	for w.n < want {
		line, err := br.ReadSlice('\n')
		if err != nil {
			w.err = fmt.Errorf("after %d of %d events: %v", w.n, want, err)
			return
		}
		now := time.Now()
		rv, okRV := intAfter(line, rvKey)
		sent, okSent := intAfter(line, sentKey)
		if !bytes.HasPrefix(line, modifiedPrefix) || !okRV || !okSent {
			w.err = fmt.Errorf("event %d: %.200s", w.n, line)
			return
		}
		if rv <= w.last {
			w.err = fmt.Errorf("event %d at resourceVersion %d after %d", w.n, rv, w.last)
			return
		}
		w.last, w.hash = rv, mix(w.hash, rv)
		d := now.Sub(time.Unix(0, sent))
		w.lat.record(d)
		w.max = max(w.max, d)
		w.n++
	}
	w.end = time.Now()
}

// readCounter counts the reads of r that return bytes: about the writes
// the server made of the stream, since each arrives whole on loopback
// unless the reader fell behind.
type readCounter struct {
	r io.Reader
	n *int
}

func (c readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		*c.n++
	}
	return n, err
}

// intAfter parses the decimal digits that follow the first key in line.
func intAfter(line, key []byte) (int64, bool) {
	i := bytes.Index(line, key)
	if i < 0 {
		return 0, false
	}
	rest := line[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	return n, err == nil
}

// update sends cfg.events updates, the i-th at start + i/rate, from
// fanOutWriters goroutines, and returns the acknowledged
// resourceVersions.
func (f *watchFixture) update(start time.Time, cfg fanOut) ([]int64, error) {
	acks := make([]int64, cfg.events)
	errs := make([]error, fanOutWriters)
	interval := time.Duration(float64(time.Second) / cfg.rate)
	var wg sync.WaitGroup
	for g := range fanOutWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var body, sent []byte
			for i := g; i < cfg.events; i += fanOutWriters {
				time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
				obj := i % fanOutObjects
				name := bench.Name("watched", obj)
				sent = strconv.AppendInt(sent[:0], time.Now().UnixNano(), 10)
				body = fanOutTemplate().fill(body[:0], []byte(name), []byte(f.rvs[obj]), sent)
				code, resp, err := f.send("PUT", bench.ObjectPath(name), body)
				if err == nil && code != http.StatusOK {
					err = fmt.Errorf("PUT %s: %d %.200s", name, code, resp)
				}
				if err == nil {
					acks[i], err = f.written(obj, resp)
				}
				if err != nil {
					errs[g] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	f.last = slices.Max(acks)
	return acks, errors.Join(errs...)
}

// check fails unless the run delivered everything and encoded no event.
func (r *fanOutResult) check(tb testing.TB, cfg fanOut) {
	tb.Helper()
	if r.encodings != 0 {
		tb.Fatalf("%d encodings for %d events to %d JSON watchers, want none: they frame the stored bytes", r.encodings, cfg.events, cfg.watchers)
	}
}

// TestWatchFanOut runs the fan-out scenario at a small size: every
// watcher gets every acknowledged update once, in order, and no update
// is encoded: the streams frame the stored bytes.
func TestWatchFanOut(t *testing.T) {
	cfg := fanOut{watchers: 50, events: 200, rate: 500}
	if testing.Short() {
		cfg = fanOut{watchers: 20, events: 100, rate: 500}
	}
	f := newWatchFixture(t, cfg.watchers)
	for range 2 { // twice: the second run starts where the first ended
		res, err := f.run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		res.check(t, cfg)
		t.Logf("%v: delivery p50 %v, p99 %v, max %v; writes took %v", cfg, res.lat.quantile(0.5), res.lat.quantile(0.99), res.max, res.writeTime)
	}
}

// BenchmarkWatchFanOut is the design's watch target: 1,000 watchers over
// loopback HTTP, 1,000 updates at 500 per second. It reports the delivery
// delay quantiles (p50-ms, p99-ms, max-ms, from the sending of a write to
// its receipt by a watcher), the update rate achieved (updates/s), the
// events delivered per second over all watchers (deliveries/s) and the
// encodings per event (encodes/event, which must be 0), the CPU time of
// the process (server and harness together) per event delivered to a
// watcher (cpu-us/delivery: unlike the rates and delays, it depends little
// on what else the machine runs) and the machine's one-minute load average
// at the end (load1; on 2 cores, anything above 2 means the benchmark got
// less than the whole machine).
func BenchmarkWatchFanOut(b *testing.B) {
	for _, cfg := range []fanOut{{watchers: 1, events: 1000, rate: 500}, {watchers: 100, events: 1000, rate: 500}, {watchers: 1000, events: 1000, rate: 500}} {
		b.Run(cfg.String(), func(b *testing.B) {
			f := newWatchFixture(b, cfg.watchers)
			var all fanOutResult
			var writeTime, deliver time.Duration
			for i := 0; i < b.N; i++ {
				res, err := f.run(cfg)
				if err != nil {
					b.Fatal(err)
				}
				res.check(b, cfg)
				all.lat.add(&res.lat)
				all.max = max(all.max, res.max)
				all.encodings += res.encodings
				all.reads += res.reads
				all.cpu += res.cpu
				writeTime += res.writeTime
				deliver += res.deliver
			}
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(all.lat.quantile(0.50)), "p50-ms")
			b.ReportMetric(ms(all.lat.quantile(0.99)), "p99-ms")
			b.ReportMetric(ms(all.max), "max-ms")
			b.ReportMetric(float64(b.N*cfg.events)/writeTime.Seconds(), "updates/s")
			b.ReportMetric(float64(b.N*cfg.events*cfg.watchers)/deliver.Seconds(), "deliveries/s")
			b.ReportMetric(float64(all.encodings)/float64(b.N*cfg.events), "encodes/event")
			b.ReportMetric(float64(all.reads)/float64(b.N*cfg.events*cfg.watchers), "reads/delivery")
			b.ReportMetric(float64(all.cpu.Microseconds())/float64(b.N*cfg.events*cfg.watchers), "cpu-us/delivery")
			if load, ok := loadAverage(); ok {
				b.ReportMetric(load, "load1")
			}
		})
	}
}

// loadAverage returns the machine's one-minute load average, where
// /proc/loadavg tells it.
func loadAverage() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(f[0]), 64)
	return v, err == nil
}
