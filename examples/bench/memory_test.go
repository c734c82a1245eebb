package bench_test

import (
	"runtime"
	"testing"
)

// BenchmarkMemoryPerWidget reports the heap a server keeps per stored
// Widget (store, watch cache and everything else), measured as the growth
// of the live heap after loading 10,000 Widgets through the handler and
// reading them all once, so that whatever reads cache is counted too.
func BenchmarkMemoryPerWidget(b *testing.B) {
	const n = 10000
	for range b.N {
		before := liveHeap()
		f, err := newFixture(n)
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
}

func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
