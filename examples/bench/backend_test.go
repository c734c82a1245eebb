package bench_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/bench"
	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// The Backend benchmarks run the same requests on the memory store and on
// etcd, as sub-benchmarks backend=memory and backend=etcd, so that
//
//	benchstat -col /backend out.txt
//
// shows etcd's figures as ratios of memory's. The etcd servers share one
// embedded single-member etcd (syncing every write to disk, as a real
// one does), each under a prefix of its own.

// backends are the stores the Backend benchmarks compare.
var backends = []string{server.StorageMemory, server.StorageEtcd}

// backendObjects is the collection size of the get and list benchmarks.
const backendObjects = 1000

var embedded struct {
	once     sync.Once
	dir      string
	srv      *server.Server
	err      error
	prefixes atomic.Int64

	mu     sync.Mutex
	opened []*server.Server
}

// openBackend opens a Widget server on the named store, closed by
// closeBackends.
func openBackend(backend string) (*server.Server, error) {
	cfg := server.Config{Storage: backend}
	if backend == server.StorageEtcd {
		embedded.once.Do(func() {
			if embedded.dir, embedded.err = os.MkdirTemp("", "kapi-bench-etcd"); embedded.err == nil {
				embedded.srv, embedded.err = server.Open(server.Config{Storage: server.StorageEmbeddedEtcd, DataDir: embedded.dir})
			}
		})
		if embedded.err != nil {
			return nil, embedded.err
		}
		cfg.EtcdEndpoints = []string{embedded.srv.EtcdURL}
		cfg.EtcdPrefix = "/bench" + strconv.FormatInt(embedded.prefixes.Add(1), 10)
	}
	srv, err := server.Open(cfg)
	if err != nil {
		return nil, err
	}
	embedded.mu.Lock()
	embedded.opened = append(embedded.opened, srv)
	embedded.mu.Unlock()
	return srv, nil
}

// closeBackends closes every server openBackend opened, then the
// embedded etcd.
func closeBackends() {
	embedded.mu.Lock()
	defer embedded.mu.Unlock()
	for _, s := range embedded.opened {
		s.Close()
	}
	if embedded.srv != nil {
		embedded.srv.Close()
	}
	if embedded.dir != "" {
		os.RemoveAll(embedded.dir)
	}
}

// backendFixture is a fixture on the named store with n Widgets; with a
// key, it is built once per process and shared.
func backendFixture(tb testing.TB, backend, key string, n int) *fixture {
	build := func() (*fixture, error) {
		srv, err := openBackend(backend)
		if err != nil {
			return nil, err
		}
		f, err := newFixtureOn(srv.Handler, n)
		if key == "" {
			f.server = srv // not shared: closed with the fixture
		}
		return f, err
	}
	if key == "" {
		f, err := build()
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(f.close)
		return f
	}
	v, _ := fixtures.LoadOrStore("backend/"+backend+"/"+key, new(lazyFixture))
	l := v.(*lazyFixture)
	l.once.Do(func() { l.f, l.err = build() })
	if l.err != nil {
		tb.Fatalf("%s: loading %d widgets: %v", backend, n, l.err)
	}
	return l.f
}

// forBackends runs bench once per backend, as backend=NAME.
func forBackends(b *testing.B, bench func(b *testing.B, backend string)) {
	for _, backend := range backends {
		b.Run("backend="+backend, func(b *testing.B) { bench(b, backend) })
	}
}

// BenchmarkBackendCreate POSTs Widgets with unique names, one client, in
// process.
func BenchmarkBackendCreate(b *testing.B) {
	forBackends(b, func(b *testing.B, backend string) {
		c := backendFixture(b, backend, "", 0).newClient(inProcess)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := c.create("create", i); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkBackendCreateParallel is BenchmarkBackendCreate with 16
// clients: etcd batches concurrent writes into one disk sync.
func BenchmarkBackendCreateParallel(b *testing.B) {
	forBackends(b, func(b *testing.B, backend string) {
		f := backendFixture(b, backend, "", 0)
		var next atomic.Int64
		setParallelClients(b)
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			c := f.newClient(inProcess)
			for pb.Next() {
				if err := c.create("create", int(next.Add(1))); err != nil {
					b.Error(err)
					return
				}
			}
		})
		reportRate(b)
	})
}

// BenchmarkBackendGet GETs a random one of 1,000 Widgets, one client, in
// process: a consistent read, which asks the store for its revision and
// serves the object from the watch cache.
func BenchmarkBackendGet(b *testing.B) {
	forBackends(b, func(b *testing.B, backend string) {
		c := backendFixture(b, backend, "read", backendObjects).newClient(inProcess)
		rng := rand.New(rand.NewPCG(1, backendObjects))
		b.ReportAllocs()
		for b.Loop() {
			if err := c.get(rng.IntN(backendObjects)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBackendGetParallel is BenchmarkBackendGet with 16 clients:
// concurrent consistent reads, which share the watch cache's requests
// for the store's current revision. On etcd it reports etcd-rt/op, the
// unary requests etcd handled per GET (counted at etcd, from its own
// metrics: every server sharing the embedded etcd is counted, the
// others idle but for their leases).
func BenchmarkBackendGetParallel(b *testing.B) {
	forBackends(b, func(b *testing.B, backend string) {
		f := backendFixture(b, backend, "read", backendObjects)
		rpcs := etcdUnaryRequests(b, backend)
		var seed atomic.Uint64
		runParallel(b, f, inProcess, func() func(*client) error {
			rng := rand.New(rand.NewPCG(seed.Add(1), backendObjects))
			return func(c *client) error { return c.get(rng.IntN(backendObjects)) }
		})
		reportRate(b)
		if backend == server.StorageEtcd {
			b.ReportMetric(float64(etcdUnaryRequests(b, backend)-rpcs)/float64(b.N), "etcd-rt/op")
		}
	})
}

// etcdUnaryRequests returns the number of unary gRPC requests the
// embedded etcd has handled, from its /metrics; 0 for other backends.
func etcdUnaryRequests(b *testing.B, backend string) int64 {
	if backend != server.StorageEtcd {
		return 0
	}
	resp, err := http.Get(embedded.srv.EtcdURL + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var n int64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "grpc_server_handled_total{") || !strings.Contains(line, `grpc_type="unary"`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			b.Fatalf("etcd metrics: %q: %v", line, err)
		}
		n += int64(v)
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkBackendList GETs all 1,000 Widgets as JSON, one client, in
// process: a consistent list from the watch cache.
func BenchmarkBackendList(b *testing.B) {
	forBackends(b, func(b *testing.B, backend string) {
		c := backendFixture(b, backend, "read", backendObjects).newClient(inProcess)
		if err := c.list(); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(c.resp.Len()))
		b.ReportAllocs()
		for b.Loop() {
			if err := c.list(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBackendWatch creates a Widget (in process) and waits for its
// ADDED event on a watch over loopback: the time from a write's request
// to its delivery to a watcher.
func BenchmarkBackendWatch(b *testing.B) {
	forBackends(b, func(b *testing.B, backend string) {
		f := backendFixture(b, backend, "", 0)
		f.startLoopback()
		resp, err := f.hc.Get(f.srv.URL + bench.CollectionPath + "?watch=1")
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("watch: %d", resp.StatusCode)
		}
		w := &watchReader{dec: json.NewDecoder(resp.Body)}
		c := f.newClient(inProcess)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := c.create("watch", i); err != nil {
				b.Fatal(err)
			}
			if err := w.next(bench.Name("watch", i)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// watchReader reads a JSON watch stream.
type watchReader struct {
	dec *json.Decoder
	ev  struct {
		Type   string `json:"type"`
		Object struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"object"`
	}
}

// next reads events until name's ADDED, failing on any other event but a
// bookmark, or after a while.
func (w *watchReader) next(name string) error {
	done := make(chan error, 1)
	go func() {
		for {
			if err := w.dec.Decode(&w.ev); err != nil {
				done <- err
				return
			}
			switch {
			case w.ev.Type == "BOOKMARK":
				continue
			case w.ev.Type != "ADDED" || w.ev.Object.Metadata.Name != name:
				done <- fmt.Errorf("watch: %s %s, want ADDED %s", w.ev.Type, w.ev.Object.Metadata.Name, name)
			default:
				done <- nil
			}
			return
		}
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		return fmt.Errorf("watch: no ADDED %s", name)
	}
}
