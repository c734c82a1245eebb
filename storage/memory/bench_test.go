package memory_test

import (
	"context"
	"fmt"
	"math/rand"
	"sync/atomic"
	"testing"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// benchValue is about the size of a Widget's JSON.
var benchValue = make([]byte, 1900)

// fill creates n keys /widgets/default/w%06d and returns the store.
func fill(b *testing.B, n int) *memory.Store {
	s := memory.New(memory.Options{})
	b.Cleanup(s.Close)
	ctx := context.Background()
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("/widgets/default/w%06d", i)
		if _, err := s.OptimisticPut(ctx, key, benchValue, 0, storage.PutOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkPut updates random keys of a 10,000-key store from parallel
// goroutines.
func BenchmarkPut(b *testing.B) {
	const n = 10000
	s := fill(b, n)
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
	s := memory.New(memory.Options{})
	b.Cleanup(s.Close)
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
	s := fill(b, n)
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
	s := fill(b, n)
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
	s := fill(b, 10000)
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
	s := fill(b, 10000)
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
	s := memory.New(memory.Options{HistoryWindow: 1 << 20})
	b.Cleanup(s.Close)
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
