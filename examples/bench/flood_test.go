package bench_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// The flood: floodClients clients of one user send merge patches as fast
// as they can, each to a Widget of its own, while a polite user GETs the
// other Widgets one at a time.
const (
	floodClients = 200
	floodObjects = 1000 // Widgets 0..floodClients-1 are patched, the rest read
	// floodReadLimit and floodWriteLimit are the in-flight limits of the
	// limits=on server. kube-apiserver's defaults (400 and 200) are sized
	// for many cores; on two, a flood of 200 clients would fit under
	// them and never be queued.
	floodReadLimit  = 40
	floodWriteLimit = 20
)

// userHeader names the request's user for the benchmark's own
// authentication: the limits queue requests per user.
const userHeader = "X-Bench-User"

// asUser serves h with the user userHeader names, as a host's
// authentication middleware would.
func asUser(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if name := r.Header.Get(userHeader); name != "" {
			r = r.WithContext(auth.WithUser(r.Context(), &auth.User{Name: name, Groups: []string{auth.AllAuthenticated}}))
		}
		h.ServeHTTP(w, r)
	})
}

// floodDuration is how long each half of BenchmarkFlood measures, whatever
// b.N is: under a flood one polite GET can take seconds, so a b.N-driven
// loop has no useful bound.
const floodDuration = 10 * time.Second

// BenchmarkFlood measures what a polite user sees while another user
// floods the server with writes (see the constants above), without and
// with in-flight limits, for floodDuration each (one round per half; ns/op
// is the polite GETs' mean latency): the polite user's GET latency (p50,
// p99), the flood's accepted and rejected (429) writes per second, the
// process's resident memory (rss-MB, VmRSS, and peak-rss-MB, VmHWM, which
// include everything the benchmark process has run before) and the
// machine's one-minute load average at the end (load1), since the machine
// may be shared, and the consistent reads served from the store because
// the watch cache could not catch up in time (consistent-fallbacks, from
// /metrics). Polite GETs that fail are counted (polite-failed, the
// first one logged). Every flood answer must be a 200 or a 429; with
// limits the flood must be turned away with 429 at least once.
func BenchmarkFlood(b *testing.B) {
	for _, limits := range []bool{false, true} {
		name := "limits=off"
		// Metrics on, as in production, to count the consistent reads
		// that fell back to the store.
		ops := server.Operations{RequestTimeout: time.Minute, Metrics: true}
		if limits {
			name = "limits=on"
			ops.MaxRequestsInFlight, ops.MaxMutatingRequestsInFlight = floodReadLimit, floodWriteLimit
		}
		b.Run(name, func(b *testing.B) {
			h, err := server.NewHandler(server.Config{Ops: ops})
			if err != nil {
				b.Fatal(err)
			}
			f, err := newFixtureOn(asUser(h), floodObjects)
			if err != nil {
				b.Fatal(err)
			}
			defer f.close()
			f.startLoopback()
			runFlood(b, f, limits)
		})
	}
}

// floodCounts are the flood's answers by kind.
type floodCounts struct {
	ok, rejected, other atomic.Int64
	lastOther           atomic.Value // string: the last unexpected answer
}

func runFlood(b *testing.B, f *fixture, limits bool) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var counts floodCounts
	var wg sync.WaitGroup
	for i := range floodClients {
		wg.Go(func() { floodWrites(ctx, f, i, &counts) })
	}
	// Let the flood build up before measuring.
	pollUntil(b, 10*time.Second, "the flood to start", func() bool { return counts.ok.Load()+counts.rejected.Load() >= floodClients })

	b.ResetTimer()
	start := time.Now()
	ok0, rej0 := counts.ok.Load(), counts.rejected.Load()
	lat, n, failed := politeGets(b, f, start.Add(floodDuration))
	elapsed := time.Since(start).Seconds()
	ok1, rej1 := counts.ok.Load(), counts.rejected.Load()
	b.StopTimer()
	if limits {
		// The flood outnumbers its seats and queue many times over; give
		// it time to be turned away on a machine slow enough to have
		// measured before the queue filled.
		pollUntil(b, 10*time.Second, "a 429 for the flood", func() bool { return counts.rejected.Load() > 0 })
	}
	stop()
	wg.Wait()
	if n := counts.other.Load(); n > 0 {
		b.Fatalf("%d flood writes neither 200 nor 429; last: %v", n, counts.lastOther.Load())
	}
	b.ReportMetric(float64(elapsed)*1e9/float64(max(n, 1)), "ns/op")
	b.ReportMetric(float64(n), "polite-gets")
	b.ReportMetric(float64(failed), "polite-failed")
	b.ReportMetric(float64(lat.quantile(0.50).Nanoseconds()), "polite-p50-ns")
	b.ReportMetric(float64(lat.quantile(0.99).Nanoseconds()), "polite-p99-ns")
	b.ReportMetric(float64(ok1-ok0)/elapsed, "flood-ok/s")
	b.ReportMetric(float64(rej1-rej0)/elapsed, "flood-429/s")
	rss, peak := processMemory(b)
	b.ReportMetric(rss, "rss-MB")
	b.ReportMetric(peak, "peak-rss-MB")
	if load, ok := loadAverage(); ok {
		b.ReportMetric(load, "load1")
	}
	b.ReportMetric(fallbacks(b, f), "consistent-fallbacks")
}

// fallbacks scrapes the server's count of consistent reads of Widgets
// served from the store because the watch cache was not fresh in time.
func fallbacks(b *testing.B, f *fixture) float64 {
	code, body, err := sendAs(f, "polite", http.MethodGet, "/metrics", "", nil)
	if err != nil || code != http.StatusOK {
		b.Fatalf("GET /metrics: %d %v %s", code, err, body)
	}
	var n float64
	for line := range strings.Lines(string(body)) {
		if strings.HasPrefix(line, "apiserver_watch_cache_consistent_read_total{") &&
			strings.Contains(line, `fallback="true"`) && strings.Contains(line, `resource="widgets"`) {
			_, v, _ := strings.Cut(strings.TrimSpace(line), "} ")
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				b.Fatalf("/metrics: %q: %v", line, err)
			}
			n += x
		}
	}
	return n
}

// politeGets GETs random unflooded Widgets as the polite user, one at a
// time, until deadline: their latencies, their number, and how many
// failed (the first failure is logged).
func politeGets(b *testing.B, f *fixture, deadline time.Time) (lat *histogram, n, failed int) {
	lat = new(histogram)
	rng := rand.New(rand.NewPCG(1, 2))
	for ; time.Now().Before(deadline); n++ {
		i := floodClients + rng.IntN(floodObjects-floodClients)
		t := time.Now()
		code, body, err := sendAs(f, "polite", http.MethodGet, f.paths[i], "", nil)
		lat.record(time.Since(t))
		if err != nil || code != http.StatusOK {
			if failed == 0 {
				b.Logf("polite GET %s: %d %v %s", f.paths[i], code, err, body)
			}
			failed++
		}
	}
	return lat, n, failed
}

// floodWrites merge-patches Widget i as the flooding user until ctx ends,
// retrying 429s at once, as a misbehaving client does.
func floodWrites(ctx context.Context, f *fixture, i int, counts *floodCounts) {
	path := f.paths[i]
	for n := 0; ctx.Err() == nil; n++ {
		patch := `{"spec":{"replicas":` + strconv.Itoa(1+n%999) + `}}`
		code, body, err := sendAs(f, "flood", http.MethodPatch, path, "application/merge-patch+json", []byte(patch))
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err == nil && code == http.StatusOK:
			counts.ok.Add(1)
		case err == nil && code == http.StatusTooManyRequests:
			counts.rejected.Add(1)
		default:
			counts.other.Add(1)
			counts.lastOther.Store(fmt.Sprintf("%d %v %s", code, err, body))
		}
	}
}

// sendAs makes one request over the fixture's loopback server as user.
func sendAs(f *fixture, user, method, path, contentType string, body []byte) (int, []byte, error) {
	var rd io.Reader = http.NoBody
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, f.srv.URL+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set(userHeader, user)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp.StatusCode, out, err
}

// pollUntil polls cond until it holds, failing after timeout.
func pollUntil(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// processMemory returns the process's resident memory and its peak, in
// MB, from /proc/self/status; zero where there is none.
func processMemory(tb testing.TB) (rss, peak float64) {
	file, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		key, value, _ := strings.Cut(sc.Text(), ":")
		if key != "VmRSS" && key != "VmHWM" {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 64)
		if err != nil {
			tb.Fatalf("/proc/self/status: %s: %v", sc.Text(), err)
		}
		if key == "VmRSS" {
			rss = kb / 1024
		} else {
			peak = kb / 1024
		}
	}
	return rss, peak
}
