package bench_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/bits"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/bench"
	"github.com/kapi-dev/kapi/examples/widgets/api"
	"github.com/kapi-dev/kapi/examples/widgets/server"
)

func TestMain(m *testing.M) {
	code := m.Run()
	fixtures.Range(func(_, v any) bool {
		if l := v.(*lazyFixture); l.f != nil {
			l.f.close()
		}
		return true
	})
	closeBackends()
	os.Exit(code)
}

// transport is how a client reaches the handler.
type transport int

const (
	// inProcess calls handler.ServeHTTP with an httptest.ResponseRecorder:
	// the server alone, no sockets, no HTTP parsing.
	inProcess transport = iota
	// loopback goes through an httptest.Server on 127.0.0.1 with a
	// keep-alive http.Client: what a real client on the same machine sees.
	loopback
)

var transports = []transport{inProcess, loopback}

func (t transport) String() string {
	if t == inProcess {
		return "inprocess"
	}
	return "loopback"
}

// Request bodies are cut from one encoded Widget at marker values and
// filled per request, so that building a body costs a few appends rather
// than a JSON encoding (which would be counted against the server in the
// in-process benchmarks).
const (
	nameMarker     = "__NAME__"
	rvMarker       = "__RESOURCE_VERSION__"
	replicasMarker = 987654321
	shardMarker    = "__SHARD__"
	colorMarker    = "__COLOR__"
)

// shardLabel is the label that splits the loaded Widgets into shards
// "00" to "99", the i-th Widget in shard i mod 100, so that a selector on
// one shard matches 1% of them.
const shardLabel = "bench.example.com/shard"

// shards is the number of distinct shard label values.
const shards = 100

func shardOf(i int) []byte {
	return []byte{byte('0' + i%shards/10), byte('0' + i%10)}
}

// colorOf is the spec.color of the i-th loaded Widget: one per shard, as
// long as bench.NewWidget's "turquoise", so that a field selector on one
// matches 1% of them and every Widget encodes to the same size.
func colorOf(i int) []byte {
	return []byte{'t', 'u', 'r', 'q', 'u', 'o', 'i', byte('a' + i%shards/10), byte('a' + i%10)}
}

var (
	// createTemplate is bench.WidgetJSON with the name as a hole.
	createTemplate = newTemplate(bench.WidgetJSON(nameMarker), nameMarker)
	// updateTemplate is the same Widget with holes for the name, the
	// resourceVersion and spec.replicas.
	updateTemplate = func() template {
		w := bench.NewWidget(nameMarker)
		w.ResourceVersion = rvMarker
		*w.Spec.Replicas = replicasMarker
		b, err := json.Marshal(w)
		if err != nil {
			panic(err)
		}
		return newTemplate(b, nameMarker, rvMarker, strconv.Itoa(replicasMarker))
	}()
)

// widgetSize selects the Widget the fixtures load (see loadTemplate).
var widgetSize = flag.String("bench.widget", "standard", "the Widget the fixtures load: standard (bench.NewWidget, about 3.9 KB as stored) or small (bench.NewSmallWidget, about 1.9 KB as stored)")

// loadTemplate is the Widget the fixtures load, bench.NewWidget or, with
// -bench.widget small, bench.NewSmallWidget, with a shard label and color
// (see shardOf, colorOf), with holes for the name, the shard and the
// color. It is made on first use, once the flags are parsed.
var loadTemplate = sync.OnceValue(func() template {
	t, err := loadTemplateOf(*widgetSize)
	if err != nil {
		panic(err)
	}
	return t
})

// widgetOf returns the constructor of the Widget of size "standard" or
// "small".
func widgetOf(size string) (func(name string) *api.Widget, error) {
	switch size {
	case "standard":
		return bench.NewWidget, nil
	case "small":
		return bench.NewSmallWidget, nil
	}
	return nil, fmt.Errorf("-bench.widget %q: want standard or small", size)
}

// selectedWidget is the constructor of the Widget -bench.widget selects.
func selectedWidget() func(name string) *api.Widget {
	newWidget, err := widgetOf(*widgetSize)
	if err != nil {
		panic(err)
	}
	return newWidget
}

// loadTemplateOf is the load template of the Widget of size "standard" or
// "small".
func loadTemplateOf(size string) (template, error) {
	newWidget, err := widgetOf(size)
	if err != nil {
		return template{}, err
	}
	w := newWidget(nameMarker)
	w.Labels[shardLabel] = shardMarker
	w.Spec.Color = colorMarker
	b, err := json.Marshal(w)
	if err != nil {
		return template{}, err
	}
	return newTemplate(b, nameMarker, shardMarker, colorMarker), nil
}

// template is a document cut at its markers: parts[i] is followed by the
// value of marker keys[i].
type template struct {
	parts   [][]byte
	keys    []int
	markers int
}

func newTemplate(doc []byte, markers ...string) template {
	t := template{markers: len(markers)}
	seen := make([]bool, len(markers))
	for {
		at, key := -1, -1
		for k, m := range markers {
			if i := bytes.Index(doc, []byte(m)); i >= 0 && (at < 0 || i < at) {
				at, key = i, k
			}
		}
		if at < 0 {
			t.parts = append(t.parts, doc)
			break
		}
		t.parts = append(t.parts, doc[:at])
		t.keys = append(t.keys, key)
		seen[key] = true
		doc = doc[at+len(markers[key]):]
	}
	for k, ok := range seen {
		if !ok {
			panic(fmt.Sprintf("template: marker %q not found", markers[k]))
		}
	}
	return t
}

// fill appends the document with values in place of the markers.
func (t template) fill(dst []byte, values ...[]byte) []byte {
	if len(values) != t.markers {
		panic("template: wrong number of values")
	}
	for i, p := range t.parts {
		dst = append(dst, p...)
		if i < len(t.keys) {
			dst = append(dst, values[t.keys[i]]...)
		}
	}
	return dst
}

// fixture is one Widget server (server.NewHandler on a memory store) with
// n Widgets loaded through the handler.
type fixture struct {
	h     http.Handler
	names []string // of the loaded Widgets
	paths []string // their object paths

	// The state of the loaded Widgets for updates, which must send the
	// current resourceVersion and change spec to be a real write. Used by
	// one goroutine at a time.
	rvs      []string
	replicas []int

	loadTime time.Duration

	loopOnce sync.Once
	srv      *httptest.Server
	hc       *http.Client

	server *server.Server // closed with the fixture, when it has one
}

// newFixture builds a handler and loads n Widgets into it, in process
// and concurrently: each is created (POST) and then given its status
// (PUT .../status), since create drops status.
func newFixture(n int) (*fixture, error) {
	srv, err := server.Open(server.Config{DisableControllers: !*fixtureControllers})
	if err != nil {
		return nil, err
	}
	f, err := newFixtureOn(srv.Handler, n)
	// Closed with the fixture: a server left running (its watch caches
	// and controllers still catching up on the writes it took) would
	// take CPU from the benchmarks that follow in the process.
	f.server = srv
	return f, err
}

// fixtureControllers runs the fixtures' servers with or without their
// controllers. Without them, a request's own work is all that runs while
// it is served, which counting instructions (bench/scripts/opcount.sh)
// needs to be repeatable.
var fixtureControllers = flag.Bool("bench.controllers", true, "run the garbage collector and namespace controller in the fixtures' servers")

// newFixtureOn is newFixture on a handler of the caller's.
func newFixtureOn(h http.Handler, n int) (*fixture, error) {
	f := unloadedFixture(n)
	f.h = h
	return f, f.load()
}

// unloadedFixture is a fixture of n Widgets, named but not loaded, and
// without a handler yet.
func unloadedFixture(n int) *fixture {
	f := &fixture{names: make([]string, n), paths: make([]string, n), rvs: make([]string, n), replicas: make([]int, n)}
	for i := range n {
		f.names[i] = bench.Name("widget", i)
		f.paths[i] = bench.ObjectPath(f.names[i])
	}
	return f
}

// load creates the fixture's namespace and loads its Widgets into its
// handler.
func (f *fixture) load() error {
	n, h := len(f.names), f.h
	if err := createNamespace(h, bench.Namespace); err != nil {
		return err
	}
	start := time.Now()
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	for range 2 * runtime.GOMAXPROCS(0) {
		c := f.newClient(inProcess)
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := c.load(i); err != nil {
					errOnce.Do(func() { firstErr = err })
					next.Store(int64(n))
					return
				}
			}
		})
	}
	wg.Wait()
	f.loadTime = time.Since(start)
	f.packResourceVersions()
	runtime.GC() // leave the loading's garbage out of the first measurement
	return firstErr
}

// packResourceVersions makes the loaded Widgets' resourceVersions share
// one string. Taken one by one from the responses, each was a tiny object
// of the client's among the server's: the memory benchmarks, which
// measure the whole process, counted them and the pages they kept from
// being returned.
func (f *fixture) packResourceVersions() {
	all := strings.Join(f.rvs, "")
	for i, rv := range f.rvs {
		f.rvs[i], all = all[:len(rv)], all[len(rv):]
	}
}

// createNamespace creates namespace ns, which the server requires of
// every namespaced write; one that exists already is fine.
func createNamespace(h http.Handler, ns string) error {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces", strings.NewReader(`{"metadata":{"name":"`+ns+`"}}`))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated && rec.Code != http.StatusConflict {
		return fmt.Errorf("creating namespace %s: %d %s", ns, rec.Code, rec.Body)
	}
	return nil
}

// freshFixture is an empty server of its own, closed when tb ends.
func freshFixture(tb testing.TB) *fixture {
	f, err := newFixture(0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(f.close)
	return f
}

// lazyFixture builds a fixture once per process.
type lazyFixture struct {
	once sync.Once
	f    *fixture
	err  error
}

var fixtures sync.Map // key → *lazyFixture

func cachedFixture(tb testing.TB, key string, n int) *fixture {
	v, _ := fixtures.LoadOrStore(key, new(lazyFixture))
	l := v.(*lazyFixture)
	l.once.Do(func() { l.f, l.err = newFixture(n) })
	if l.err != nil {
		tb.Fatalf("loading %d widgets: %v", n, l.err)
	}
	return l.f
}

// preloaded is the shared read-only server with n Widgets, for get and
// list.
func preloaded(tb testing.TB, n int) *fixture {
	return cachedFixture(tb, "preloaded/"+strconv.Itoa(n), n)
}

// updateObjects is the number of Widgets BenchmarkUpdate cycles through.
const updateObjects = 1000

// updateFixture is the server BenchmarkUpdate writes to, apart from the
// read-only ones so that updates do not change what get and list read.
func updateFixture(tb testing.TB) *fixture {
	return cachedFixture(tb, "update", updateObjects)
}

// startLoopback serves the handler on 127.0.0.1 once per fixture, with a
// keep-alive client whose pool holds enough connections for every
// parallel client. Compression is off: the figures are for plain JSON.
func (f *fixture) startLoopback() {
	f.loopOnce.Do(func() {
		if *useHTTP2 {
			f.srv, f.hc = startHTTP2(f.h, 256)
			return
		}
		f.srv = httptest.NewServer(f.h)
		f.hc = &http.Client{Transport: &http.Transport{
			MaxIdleConns:        256,
			MaxIdleConnsPerHost: 256,
			DisableCompression:  true,
		}}
	})
}

func (f *fixture) close() {
	if f.srv != nil {
		f.hc.CloseIdleConnections()
		f.srv.Close()
	}
	if f.server != nil {
		f.server.Close()
	}
}

// client sends requests to a fixture over one transport. It is used by
// one goroutine; a parallel benchmark makes one per goroutine.
type client struct {
	f    *fixture
	tr   transport
	base string // "" in process, the server's URL over loopback
	resp bytes.Buffer
	body []byte
	name []byte
	num  []byte
	// accept is the Accept header of reads; "" is application/json.
	accept string
}

func (f *fixture) newClient(tr transport) *client {
	c := &client{f: f, tr: tr}
	if tr == loopback {
		f.startLoopback()
		c.base = f.srv.URL
	}
	return c
}

// do sends one request and leaves the response body in c.resp. In process
// the recorder writes into c.resp, whose capacity is kept from request to
// request, so that growing the recorder's buffer is not counted against
// the server.
func (c *client) do(method, path string, body []byte) (int, error) {
	return c.send(method, path, "application/json", body)
}

// send is do with the Content-Type of the body.
func (c *client) send(method, path, contentType string, body []byte) (int, error) {
	var rd io.Reader = http.NoBody
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return 0, err
	}
	accept := c.accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	c.resp.Reset()
	if c.tr == inProcess {
		rec := &httptest.ResponseRecorder{HeaderMap: make(http.Header), Body: &c.resp, Code: http.StatusOK}
		c.f.h.ServeHTTP(rec, req)
		return rec.Code, nil
	}
	resp, err := c.f.hc.Do(req)
	if err != nil {
		return 0, err
	}
	_, err = c.resp.ReadFrom(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, err
}

// expect sends a request and fails unless the answer has code want.
func (c *client) expect(want int, method, path string, body []byte) error {
	code, err := c.do(method, path, body)
	if err != nil {
		return fmt.Errorf("%s %s: %v", method, path, err)
	}
	if code != want {
		b := c.resp.Bytes()
		if len(b) > 300 {
			b = b[:300]
		}
		return fmt.Errorf("%s %s: got %d, want %d: %s", method, path, code, want, b)
	}
	return nil
}

// create POSTs the benchmark Widget named Name(prefix, i); 201 expected.
func (c *client) create(prefix string, i int) error {
	c.name = bench.AppendName(c.name[:0], prefix, i)
	c.body = createTemplate.fill(c.body[:0], c.name)
	return c.expect(http.StatusCreated, "POST", bench.CollectionPath, c.body)
}

// get GETs the i-th loaded Widget; 200 expected.
func (c *client) get(i int) error {
	return c.expect(http.StatusOK, "GET", c.f.paths[i], nil)
}

// list GETs the whole collection as JSON; 200 expected.
func (c *client) list() error {
	return c.expect(http.StatusOK, "GET", bench.CollectionPath, nil)
}

// load creates the i-th Widget, with the shard label and color of i, and writes
// its status.
func (c *client) load(i int) error {
	c.body = loadTemplate().fill(c.body[:0], []byte(c.f.names[i]), shardOf(i), colorOf(i))
	if err := c.expect(http.StatusCreated, "POST", bench.CollectionPath, c.body); err != nil {
		return err
	}
	created, ok := resourceVersionOf(c.resp.Bytes())
	if !ok {
		return fmt.Errorf("no resourceVersion in %s", c.resp.Bytes())
	}
	c.body = withResourceVersion(c.body, created)
	if err := c.expect(http.StatusOK, "PUT", c.f.paths[i]+"/status", c.body); err != nil {
		return err
	}
	rv, ok := resourceVersionOf(c.resp.Bytes())
	if !ok {
		return fmt.Errorf("no resourceVersion in %s", c.resp.Bytes())
	}
	c.f.rvs[i], c.f.replicas[i] = rv, 3
	return nil
}

// update PUTs the i-th loaded Widget with its current resourceVersion and
// spec.replicas flipped between 1 and 2, so that every update is a real
// write; 200 expected. It records the new resourceVersion.
func (c *client) update(i int) error {
	f := c.f
	replicas := 1
	if f.replicas[i] == 1 {
		replicas = 2
	}
	c.num = strconv.AppendInt(c.num[:0], int64(replicas), 10)
	c.name = append(c.name[:0], f.names[i]...)
	c.body = updateTemplate.fill(c.body[:0], c.name, []byte(f.rvs[i]), c.num)
	if err := c.expect(http.StatusOK, "PUT", f.paths[i], c.body); err != nil {
		return err
	}
	newRV, ok := resourceVersionOf(c.resp.Bytes())
	if !ok {
		return fmt.Errorf("no resourceVersion in %s", c.resp.Bytes())
	}
	if newRV == f.rvs[i] {
		return fmt.Errorf("PUT %s: resourceVersion %s unchanged: the update wrote nothing", f.paths[i], newRV)
	}
	f.rvs[i], f.replicas[i] = newRV, replicas
	return nil
}

// withResourceVersion puts resourceVersion rv first in body's metadata:
// an update of a Widget names the version it replaces, as one of a
// custom resource must.
func withResourceVersion(body []byte, rv string) []byte {
	const key = `"metadata":{`
	at := bytes.Index(body, []byte(key)) + len(key)
	out := make([]byte, 0, len(body)+len(rv)+24)
	out = append(out, body[:at]...)
	out = append(out, `"resourceVersion":"`...)
	out = append(out, rv...)
	out = append(out, `",`...)
	return append(out, body[at:]...)
}

// resourceVersionOf finds metadata.resourceVersion in an encoded Widget:
// the first "resourceVersion" key, since metadata comes before spec and
// status.
func resourceVersionOf(b []byte) (string, bool) {
	const key = `"resourceVersion":"`
	i := bytes.Index(b, []byte(key))
	if i < 0 {
		return "", false
	}
	b = b[i+len(key):]
	j := bytes.IndexByte(b, '"')
	if j < 0 {
		return "", false
	}
	return string(b[:j]), true
}

// parallelClients is the number of concurrent clients the parallel
// benchmarks mimic; on 2 cores that is b.SetParallelism(8).
const parallelClients = 16

func setParallelClients(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((parallelClients + procs - 1) / procs)
}

// histogram counts request latencies in buckets 12.5% wide: exact below
// 16 ns, then 8 buckets per power of two.
type histogram struct {
	counts [16 + 60*8]uint64
}

func bucketOf(ns int64) int {
	if ns < 16 {
		return int(max(ns, 0))
	}
	e := bits.Len64(uint64(ns)) - 1 // ≥ 4
	m := int(ns>>(e-3)) & 7
	return 16 + (e-4)*8 + m
}

// upperBound is the greatest latency bucket i holds.
func upperBound(i int) int64 {
	if i < 16 {
		return int64(i)
	}
	e, m := (i-16)/8+4, int64((i-16)%8)
	return ((8+m+1)<<(e-3) - 1)
}

func (h *histogram) record(d time.Duration) { h.counts[bucketOf(int64(d))]++ }

func (h *histogram) add(o *histogram) {
	for i, n := range o.counts {
		h.counts[i] += n
	}
}

// quantile is an upper bound of the q-quantile, within 12.5%.
func (h *histogram) quantile(q float64) time.Duration {
	var total uint64
	for _, n := range h.counts {
		total += n
	}
	if total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for i, n := range h.counts {
		seen += n
		if seen >= rank {
			return time.Duration(upperBound(i))
		}
	}
	return time.Duration(upperBound(len(h.counts) - 1))
}

// latencies merges the goroutines' histograms of a parallel benchmark.
type latencies struct {
	mu sync.Mutex
	h  histogram
}

func (l *latencies) merge(h *histogram) {
	l.mu.Lock()
	l.h.add(h)
	l.mu.Unlock()
}

// report adds p50 and p99 request latency and the request rate.
func (l *latencies) report(b *testing.B) {
	b.ReportMetric(float64(l.h.quantile(0.50).Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(l.h.quantile(0.99).Nanoseconds()), "p99-ns")
	reportRate(b)
}

// reportRate adds requests per second of wall time over all clients.
func reportRate(b *testing.B) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N)/s, "req/s")
	}
}

var (
	useHTTP2     = flag.Bool("bench.http2", false, "serve the loopback transport over TLS, its clients sharing one HTTP/2 transport as client-go's do")
	http2Streams = flag.Int("bench.http2-streams", 100, "with -bench.http2, the streams the server allows per HTTP/2 connection (the example server's and kube-apiserver's default: 100; net/http's: 250)")
)

// startHTTP2 serves h over TLS on 127.0.0.1 with HTTP/2 and returns the
// server and a client of it that keeps up to conns idle connections.
func startHTTP2(h http.Handler, conns int) (*httptest.Server, *http.Client) {
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: *http2Streams}
	srv.StartTLS()
	hc := srv.Client()
	tr := hc.Transport.(*http.Transport)
	tr.DisableCompression, tr.MaxIdleConns, tr.MaxIdleConnsPerHost = true, conns, conns
	return srv, hc
}
