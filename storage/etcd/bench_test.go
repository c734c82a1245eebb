package etcd_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/etcd"
)

// The benchmarks mirror storage/memory's (same key counts, value size and
// parallelism) so that the two backends can be compared. They share one
// embedded etcd, started by the first benchmark, which syncs its writes
// to disk unless -etcd.nofsync is given.

var noFsync = flag.Bool("etcd.nofsync", false, "benchmarks: run the embedded etcd without fsync")

// benchValue is about the size of a Widget's JSON.
var benchValue = make([]byte, 1900)

var bench struct {
	once   sync.Once
	dir    string
	tb     *benchTB
	srv    *server
	err    error
	filled map[string]bool
	mu     sync.Mutex
	runs   atomic.Int64
}

// benchTB lets startEtcd run outside a test: its cleanups run in
// TestMain.
type benchTB struct {
	testing.TB
	cleanups []func()
}

func (b *benchTB) Cleanup(f func()) { b.cleanups = append(b.cleanups, f) }
func (b *benchTB) Helper()          {}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.tb != nil {
		for i := len(bench.tb.cleanups) - 1; i >= 0; i-- {
			bench.tb.cleanups[i]()
		}
	}
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

// benchStore returns a store on the shared etcd with the given prefix,
// holding n keys /widgets/default/w%06d (filled once per prefix).
func benchStore(b *testing.B, prefix string, n int) *etcd.Store {
	bench.once.Do(func() {
		bench.dir, bench.err = os.MkdirTemp("", "kapi-etcd-bench")
		if bench.err != nil {
			return
		}
		bench.tb = &benchTB{TB: b}
		bench.srv = startEtcd(bench.tb, bench.dir, !*noFsync)
		bench.tb.TB = nil // b is only valid during the start
		bench.filled = map[string]bool{}
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	s := etcd.New(bench.srv.cli, etcd.Options{Prefix: prefix})
	bench.mu.Lock()
	defer bench.mu.Unlock()
	if n > 0 && !bench.filled[prefix] {
		fill(b, s, n)
		bench.filled[prefix] = true
	}
	return s
}

func fill(b *testing.B, s *etcd.Store, n int) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 32 {
				key := fmt.Sprintf("/widgets/default/w%06d", i)
				if _, err := s.OptimisticPut(ctx, key, benchValue, 0, storage.PutOptions{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

// BenchmarkPut updates random keys of a 10,000-key store from parallel
// goroutines.
func BenchmarkPut(b *testing.B) {
	const n = 10000
	s := benchStore(b, "/fill", n)
	ctx := context.Background()
	var seed atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		rnd := rand.New(rand.NewSource(seed.Add(1)))
		for pb.Next() {
			key := fmt.Sprintf("/widgets/default/w%06d", rnd.Intn(n))
			g, _ := s.Get(ctx, key, storage.GetOptions{})
			if _, err := s.OptimisticPut(ctx, key, benchValue, g.KV.ModRevision, storage.PutOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCreate adds new keys to a growing store.
func BenchmarkCreate(b *testing.B) {
	s := benchStore(b, "/create", 0)
	ctx := context.Background()
	keys := make([]string, b.N)
	for i := range keys {
		keys[i] = fmt.Sprintf("/widgets/default/w%09d", rand.Int63())
	}
	b.ReportAllocs()
	b.ResetTimer()
	for _, key := range keys {
		if _, err := s.OptimisticPut(ctx, key, benchValue, 0, storage.PutOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet reads random keys of a 10,000-key store from parallel
// goroutines.
func BenchmarkGet(b *testing.B) {
	const n = 10000
	s := benchStore(b, "/fill", n)
	ctx := context.Background()
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("/widgets/default/w%06d", i)
	}
	var seed atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		rnd := rand.New(rand.NewSource(seed.Add(1)))
		for pb.Next() {
			if g, _ := s.Get(ctx, keys[rnd.Intn(n)], storage.GetOptions{}); g.KV == nil {
				b.Fatal("missing key")
			}
		}
	})
}

// BenchmarkGetOldRevision reads at a revision 1,000 writes old.
func BenchmarkGetOldRevision(b *testing.B) {
	const n = 10000
	s := benchStore(b, "/fill", n)
	ctx := context.Background()
	rev, _ := s.Revision(ctx)
	for i := 0; i < 1000; i++ {
		key := fmt.Sprintf("/widgets/default/w%06d", i)
		g, _ := s.Get(ctx, key, storage.GetOptions{})
		s.OptimisticPut(ctx, key, benchValue, g.KV.ModRevision, storage.PutOptions{})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		key := fmt.Sprintf("/widgets/default/w%06d", i%2000)
		if g, _ := s.Get(ctx, key, storage.GetOptions{Revision: rev}); g.KV == nil {
			b.Fatal("missing key")
		}
	}
}

// BenchmarkList1000 lists a 1,000-key prefix of a 10,000-key store.
func BenchmarkList1000(b *testing.B) {
	s := benchStore(b, "/fill", 10000)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, _ := s.List(ctx, "/widgets/default/w001", storage.ListOptions{})
		if len(l.KVs) != 1000 {
			b.Fatalf("listed %d", len(l.KVs))
		}
	}
}

// BenchmarkList10000Paged lists 10,000 keys in pages of 500 at the first
// page's revision, after 1,000 writes since it.
func BenchmarkList10000Paged(b *testing.B) {
	s := benchStore(b, "/fill", 10000)
	ctx := context.Background()
	rev, _ := s.Revision(ctx)
	for i := 0; i < 1000; i++ {
		key := fmt.Sprintf("/widgets/default/w%06d", i*7)
		g, _ := s.Get(ctx, key, storage.GetOptions{})
		s.OptimisticPut(ctx, key, benchValue, g.KV.ModRevision, storage.PutOptions{})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		opts := storage.ListOptions{Revision: rev, Limit: 500}
		total := 0
		for {
			l, err := s.List(ctx, "/widgets/", opts)
			if err != nil {
				b.Fatal(err)
			}
			total += len(l.KVs)
			if l.Remaining == 0 {
				break
			}
			opts.After = l.KVs[len(l.KVs)-1].Key
		}
		if total != 10000 {
			b.Fatalf("listed %d", total)
		}
	}
}

// BenchmarkWatchFanout measures a write delivered to 100 watchers; each
// op is one write, the benchmark ends when every watcher has every event.
func BenchmarkWatchFanout(b *testing.B) {
	const watchers = 100
	s := benchStore(b, fmt.Sprintf("/fanout%d", bench.runs.Add(1)), 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, watchers)
	for w := 0; w < watchers; w++ {
		ch := s.Watch(ctx, "/widgets/", storage.WatchOptions{})
		go func() {
			got := 0
			for resp := range ch {
				if resp.Err != nil {
					break
				}
				if got += len(resp.Events); got == b.N {
					break
				}
			}
			done <- got
		}()
	}
	b.ReportAllocs()
	b.ResetTimer()
	var rev int64
	for i := 0; i < b.N; i++ {
		resp, err := s.OptimisticPut(ctx, "/widgets/default/a", benchValue[:200], rev, storage.PutOptions{})
		if err != nil || !resp.Succeeded {
			b.Fatal(resp, err)
		}
		rev = resp.Revision
	}
	for w := 0; w < watchers; w++ {
		if got := <-done; got != b.N {
			b.Fatalf("a watcher got %d of %d events", got, b.N)
		}
	}
}
