package storagetest

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kapi-dev/kapi/storage"
)

// Bench runs the storage benchmarks, each as a sub-benchmark of b (Put,
// Create, Get, GetOldRevision, List1000, List10000Paged, WatchFanout) so
// that backends can be compared on the same key counts, value size and
// parallelism.
//
// newStore is called at the start of every run of a sub-benchmark, with
// that sub-benchmark's b: b.Name() ends in the sub-benchmark's name, for
// backends that want a store per benchmark. Nothing else may write to the
// store meanwhile. A store may be handed out again, keys and all: Bench
// only writes the keys /widgets/default/w%06d that are missing (and
// skips that altogether when all of them are there), and every benchmark
// tolerates keys left by an earlier run of itself. The List benchmarks
// count the keys under /widgets/, so their store must hold none but
// those; Create and WatchFanout write keys of their own there, so a
// backend that shares stores should give those two separate ones.
func Bench(b *testing.B, newStore func(b *testing.B) storage.Interface) {
	benchmarks := []struct {
		name string
		fn   func(b *testing.B, newStore func(b *testing.B) storage.Interface)
	}{
		{"Put", benchPut},
		{"Create", benchCreate},
		{"Get", benchGet},
		{"GetOldRevision", benchGetOldRevision},
		{"List1000", benchList1000},
		{"List10000Paged", benchList10000Paged},
		{"WatchFanout", benchWatchFanout},
	}
	for _, bm := range benchmarks {
		b.Run(bm.name, func(b *testing.B) { bm.fn(b, newStore) })
	}
}

// benchValue is about the size of a Widget's JSON.
var benchValue = make([]byte, 1900)

// benchKey is the i-th of the keys benchFill creates.
func benchKey(i int) string { return fmt.Sprintf("/widgets/default/w%06d", i) }

// benchFill returns a store from newStore holding the n keys
// /widgets/default/w%06d, creating those it lacks from 32 goroutines.
func benchFill(b *testing.B, newStore func(b *testing.B) storage.Interface, n int) storage.Interface {
	s := newStore(b)
	ctx := context.Background()
	l, err := s.List(ctx, "/widgets/default/w", storage.ListOptions{Limit: 1})
	if err != nil {
		b.Fatal(err)
	}
	if int64(len(l.KVs))+l.Remaining == int64(n) {
		return s // filled by an earlier run
	}
	const workers = 32
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				// A failed comparison means the key is there already.
				if _, err := s.OptimisticPut(ctx, benchKey(i), benchValue, 0, storage.PutOptions{}); err != nil {
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
	return s
}

// benchPut updates random keys of a 10,000-key store from parallel
// goroutines.
func benchPut(b *testing.B, newStore func(b *testing.B) storage.Interface) {
	const n = 10000
	s := benchFill(b, newStore, n)
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

// benchCreate adds new keys to a growing store.
func benchCreate(b *testing.B, newStore func(b *testing.B) storage.Interface) {
	s := newStore(b)
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

// benchGet reads random keys of a 10,000-key store from parallel
// goroutines.
func benchGet(b *testing.B, newStore func(b *testing.B) storage.Interface) {
	const n = 10000
	s := benchFill(b, newStore, n)
	ctx := context.Background()
	keys := make([]string, n)
	for i := range keys {
		keys[i] = benchKey(i)
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

// benchGetOldRevision reads at a revision 1,000 writes old.
func benchGetOldRevision(b *testing.B, newStore func(b *testing.B) storage.Interface) {
	const n = 10000
	s := benchFill(b, newStore, n)
	ctx := context.Background()
	rev, _ := s.Revision(ctx)
	for i := 0; i < 1000; i++ {
		key := benchKey(i)
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

// benchList1000 lists a 1,000-key prefix of a 10,000-key store.
func benchList1000(b *testing.B, newStore func(b *testing.B) storage.Interface) {
	s := benchFill(b, newStore, 10000)
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

// benchList10000Paged lists 10,000 keys in pages of 500 at the first
// page's revision, after 1,000 writes since it.
func benchList10000Paged(b *testing.B, newStore func(b *testing.B) storage.Interface) {
	s := benchFill(b, newStore, 10000)
	ctx := context.Background()
	rev, _ := s.Revision(ctx)
	for i := 0; i < 1000; i++ {
		key := benchKey(i * 7)
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

// benchWatchFanout measures a write delivered to 100 watchers; each op is
// one write, the benchmark ends when every watcher has every event. The
// store must keep enough history for a watcher that falls b.N writes
// behind.
func benchWatchFanout(b *testing.B, newStore func(b *testing.B) storage.Interface) {
	const watchers = 100
	const key = "/widgets/default/a"
	s := newStore(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var rev int64
	if g, err := s.Get(ctx, key, storage.GetOptions{}); err != nil {
		b.Fatal(err)
	} else if g.KV != nil { // left by an earlier run
		rev = g.KV.ModRevision
	}
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
	for i := 0; i < b.N; i++ {
		resp, err := s.OptimisticPut(ctx, key, benchValue[:200], rev, storage.PutOptions{})
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
