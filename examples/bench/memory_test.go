package bench_test

import (
	"net/http"
	"runtime"
	"testing"

	"github.com/kapi-dev/kapi/examples/bench"
	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// BenchmarkMemoryPerWidget reports the heap a server keeps per stored
// Widget (store, watch cache and everything else), measured as the growth
// of the live heap after loading 10,000 Widgets through the handler and
// reading them all once, so that whatever reads cache is counted too;
// with the garbage collector and namespace controller running (their
// mirrors of every object count) and without.
func BenchmarkMemoryPerWidget(b *testing.B) {
	const n = 10000
	for _, on := range []bool{true, false} {
		b.Run(controllersName(on), func(b *testing.B) {
			for range b.N {
				before := liveHeap()
				h, err := server.NewHandler(server.Config{DisableControllers: !on})
				if err != nil {
					b.Fatal(err)
				}
				f, err := newFixtureOn(h, n)
				if err != nil {
					b.Fatal(err)
				}
				c := f.newClient(inProcess)
				if err := c.list(); err != nil {
					b.Fatal(err)
				}
				after := liveHeap()
				b.ReportMetric(float64(after-before)/n, "heap-B/widget")
				runtime.KeepAlive(f)
				f.close()
			}
		})
	}
}

// controllersName names a sub-benchmark with the controllers on or off.
func controllersName(on bool) string {
	if on {
		return "controllers=on"
	}
	return "controllers=off"
}

func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkMemoryPerCreatedWidget is BenchmarkMemoryPerWidget for Widgets
// that are only created: no status write, so no Widget has an older
// version in the history and each holds one managedFields entry.
func BenchmarkMemoryPerCreatedWidget(b *testing.B) {
	const n = 10000
	for range b.N {
		before := liveHeap()
		h, err := server.NewHandler(server.Config{})
		if err != nil {
			b.Fatal(err)
		}
		f, err := newFixtureOn(h, 0)
		if err != nil {
			b.Fatal(err)
		}
		c := f.newClient(inProcess)
		for i := range n {
			c.body = createTemplate.fill(c.body[:0], []byte(bench.Name("widget", i)))
			if err := c.expect(http.StatusCreated, "POST", bench.CollectionPath, c.body); err != nil {
				b.Fatal(err)
			}
		}
		if err := c.list(); err != nil {
			b.Fatal(err)
		}
		after := liveHeap()
		b.ReportMetric(float64(after-before)/n, "heap-B/widget")
		runtime.KeepAlive(f)
		f.close()
	}
}
