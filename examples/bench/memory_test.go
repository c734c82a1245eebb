package bench_test

import (
	"bufio"
	"bytes"
	"flag"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/bench"
	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// heapProfile names a file the memory benchmarks write a heap profile to
// once the server is loaded and settled, while it is still alive, so that
// go tool pprof -sample_index=inuse_space shows what the server keeps.
// Run with -test.memprofilerate 4096 or lower for a profile fine enough to
// break the figure down per structure.
var heapProfile = flag.String("bench.heapprofile", "", "write a heap profile of the loaded, settled server of the memory benchmarks to this file")

// BenchmarkMemoryPerWidget reports the memory a server keeps per stored
// Widget (store, history, watch cache and everything else) after loading
// 10,000 Widgets through the handler (a create and a status update each)
// and reading them all once, so that whatever reads cache is counted too;
// with the garbage collector and namespace controller running (their
// mirrors of every object count) and without. It reports the growth of
// the live heap (heap-B/widget), of the heap's pages in use (inuse-B/widget:
// the live heap and the free slots of pages still holding live objects,
// which the runtime cannot return), of the resident set (rss-B/widget)
// and of its anonymous part (anon-B/widget: the resident set without the
// pages of the test binary that the load ran for the first time), all
// measured once the server has settled: the controllers have caught
// up, and the Go runtime has collected and returned what it does not use.
// The Widgets are about 3.9 KB as stored; -bench.widget small loads
// Widgets of about 1.9 KB as stored instead (see the package doc).
func BenchmarkMemoryPerWidget(b *testing.B) {
	const n = 10000
	for _, on := range []bool{true, false} {
		b.Run(controllersName(on), func(b *testing.B) {
			for range b.N {
				// The fixture's names and paths are the client's: they
				// are made before measuring.
				f := unloadedFixture(n)
				before := settledMemory()
				h, err := server.NewHandler(server.Config{DisableControllers: !on})
				if err != nil {
					b.Fatal(err)
				}
				f.h = h
				if err := f.load(); err != nil {
					b.Fatal(err)
				}
				c := f.newClient(inProcess)
				if err := c.list(); err != nil {
					b.Fatal(err)
				}
				reportPerWidget(b, before, n)
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

// memoryFigures is the live heap, the heap's pages in use (the live heap
// and the free slots of pages that still hold live objects), the
// resident set of the process and its anonymous part (the resident set
// without the pages of the executable and other files, which grows as
// code runs for the first time).
type memoryFigures struct {
	heap, inUse, rss, anon uint64
}

// settledMemory waits for the process's live heap to settle (background
// work such as the controllers catching up on the watch cache allocates
// and frees for a while after the last write, and what is kept for a few
// seconds is let go) and returns it with the resident set, after the
// runtime has returned its free memory to the system.
func settledMemory() memoryFigures {
	// The watch caches keep the encoded events they shared between
	// watchers for 5 seconds after the change (watch.Event.Encoded).
	time.Sleep(6 * time.Second)
	last := liveHeap()
	for range 50 {
		time.Sleep(100 * time.Millisecond)
		cur := liveHeap()
		diff := int64(cur) - int64(last)
		last = cur
		if diff < 0 {
			diff = -diff
		}
		if uint64(diff) <= cur/500 { // within 0.2%
			break
		}
	}
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return memoryFigures{heap: m.HeapAlloc, inUse: m.HeapInuse, rss: residentKB("VmRSS:"), anon: residentKB("RssAnon:")}
}

// reportPerWidget reports the growth of the heap and of the resident set
// since before, per Widget of n, once the process has settled, and writes
// the heap profile when -bench.heapprofile asks for it.
func reportPerWidget(b *testing.B, before memoryFigures, n int) {
	after := settledMemory()
	b.ReportMetric((float64(after.heap)-float64(before.heap))/float64(n), "heap-B/widget")
	b.ReportMetric((float64(after.inUse)-float64(before.inUse))/float64(n), "inuse-B/widget")
	if after.rss > 0 {
		b.ReportMetric((float64(after.rss)-float64(before.rss))/float64(n), "rss-B/widget")
	}
	if after.anon > 0 {
		b.ReportMetric((float64(after.anon)-float64(before.anon))/float64(n), "anon-B/widget")
	}
	if *heapProfile == "" {
		return
	}
	out, err := os.Create(*heapProfile)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	if err := pprof.Lookup("heap").WriteTo(out, 0); err != nil {
		b.Fatal(err)
	}
}

func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// residentKB returns a size /proc/self/status gives in kB (field is
// "VmRSS:" for the resident set), in bytes, or 0 where that file does not
// exist.
func residentKB(field string) uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		line, ok := bytes.CutPrefix(s.Bytes(), []byte(field))
		if !ok {
			continue
		}
		kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(line), []byte(" kB"))), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}

// BenchmarkMemoryPerCreatedWidget is BenchmarkMemoryPerWidget for Widgets
// that are only created: no status write, so no Widget has an older
// version in the history and each holds one managedFields entry.
func BenchmarkMemoryPerCreatedWidget(b *testing.B) {
	const n = 10000
	for range b.N {
		before := settledMemory()
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
		reportPerWidget(b, before, n)
		runtime.KeepAlive(f)
		f.close()
	}
}
