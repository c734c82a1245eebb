package watch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// widget is a stand-in for a decoded Widget.
type widget struct {
	Metadata struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Replicas int      `json:"replicas"`
		Color    string   `json:"color"`
		Tags     []string `json:"tags"`
		Notes    string   `json:"notes"`
	} `json:"spec"`
}

// widgetJSON returns about 1.9 KB of JSON for widget i.
func widgetJSON(i int) []byte {
	var w widget
	w.Metadata.Name = fmt.Sprintf("w%05d", i)
	w.Metadata.Namespace = "default"
	w.Metadata.Labels = map[string]string{"app": "bench", "tier": fmt.Sprint(i % 3)}
	w.Spec.Replicas = i % 10
	w.Spec.Color = "red"
	w.Spec.Tags = []string{"a", "b", "c"}
	w.Spec.Notes = strings.Repeat("x", 1700)
	b, _ := json.Marshal(w)
	return b
}

func decodeWidget(kv *storage.KeyValue) (any, error) {
	w := new(widget)
	return w, json.Unmarshal(kv.Value, w)
}

// fill creates n widgets.
func fill(b testing.TB, s storage.Interface, n int) {
	for i := 0; i < n; i++ {
		if _, err := s.OptimisticPut(ctx, key(i), widgetJSON(i), 0, storage.PutOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDispatch measures one write delivered to every watcher: each
// op is one write, and the benchmark ends when every watcher has every
// event. "store" is the same fan-out with one store watch per watcher.
func BenchmarkDispatch(b *testing.B) {
	for _, via := range []string{"cache", "store"} {
		for _, n := range []int{1, 100, 1000} {
			b.Run(fmt.Sprintf("%s/watchers=%d", via, n), func(b *testing.B) {
				benchDispatch(b, via == "cache", n)
			})
		}
	}
}

func benchDispatch(b *testing.B, cached bool, watchers int) {
	s := newStore(b, memory.Options{HistoryWindow: 1 << 21})
	c := newCache(b, s, watch.Options{EventWindow: 1 << 21})
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan int, watchers)
	for i := 0; i < watchers; i++ {
		if cached {
			w, err := c.Watch(wctx, prefix, 0, watch.WatchOptions{})
			if err != nil {
				b.Fatal(err)
			}
			go func() {
				got := 0
				for range w.Events() {
					if got++; got == b.N {
						break
					}
				}
				done <- got
			}()
			continue
		}
		ch := s.Watch(wctx, prefix, storage.WatchOptions{})
		go func() {
			got := 0
			for resp := range ch {
				if got += len(resp.Events); got == b.N || resp.Err != nil {
					break
				}
			}
			done <- got
		}()
	}
	value := widgetJSON(0)[:200]
	b.ReportAllocs()
	b.ResetTimer()
	var rev int64
	for i := 0; i < b.N; i++ {
		resp, err := s.OptimisticPut(ctx, key(0), value, rev, storage.PutOptions{})
		if err != nil || !resp.Succeeded {
			b.Fatal(resp, err)
		}
		rev = resp.Revision
	}
	for i := 0; i < watchers; i++ {
		if got := <-done; got != b.N {
			b.Fatalf("a watcher got %d of %d events", got, b.N)
		}
	}
}

// BenchmarkList10000 lists 10,000 widgets of about 1.9 KB: from the
// cache, and from the memory store directly (raw, and decoding each value
// as a server must).
func BenchmarkList10000(b *testing.B) {
	const n = 10000
	s := newStore(b, memory.Options{})
	fill(b, s, n)
	c := newCache(b, s, watch.Options{Decode: decodeWidget})
	old := c.Revision()
	for i := 0; i < 100; i++ { // make old a past revision
		put(b, s, key(i*7), string(widgetJSON(i)))
	}
	c.Sync(ctx)
	check := func(b *testing.B, got int) {
		if got != n {
			b.Fatalf("listed %d", got)
		}
	}
	cacheList := func(opts resourceversion.List, objects bool) func(*testing.B) {
		return func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				res, err := c.List(ctx, prefix, watch.ListOptions{List: opts})
				if err != nil {
					b.Fatal(err)
				}
				if objects {
					for _, e := range res.Entries {
						if _, err := e.Object(); err != nil {
							b.Fatal(err)
						}
					}
				}
				check(b, len(res.Entries))
			}
		}
	}
	b.Run("cache/Any", cacheList(resourceversion.List{Semantics: resourceversion.Any}, false))
	b.Run("cache/MostRecent", cacheList(resourceversion.List{Semantics: resourceversion.MostRecent}, false))
	b.Run("cache/Exact-snapshot", cacheList(resourceversion.List{Semantics: resourceversion.Exact, Revision: old}, false))
	b.Run("cache/MostRecent+objects", cacheList(resourceversion.List{Semantics: resourceversion.MostRecent}, true))
	b.Run("cache/paged500", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			got, _ := pageAll(b, c, 500, nil, func(int) {})
			check(b, len(got))
		}
	})
	b.Run("store/raw", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			l, err := s.List(ctx, prefix, storage.ListOptions{})
			if err != nil {
				b.Fatal(err)
			}
			check(b, len(l.KVs))
		}
	})
	b.Run("store/decoded", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			l, _ := s.List(ctx, prefix, storage.ListOptions{})
			for _, kv := range l.KVs {
				if _, err := decodeWidget(kv); err != nil {
					b.Fatal(err)
				}
			}
			check(b, len(l.KVs))
		}
	})
}

// BenchmarkGet reads random keys of 10,000 from parallel goroutines.
func BenchmarkGet(b *testing.B) {
	const n = 10000
	s := newStore(b, memory.Options{})
	fill(b, s, n)
	c := newCache(b, s, watch.Options{Decode: decodeWidget})
	keys := make([]string, n)
	for i := range keys {
		keys[i] = key(i)
	}
	get := func(read func(key string) bool) func(*testing.B) {
		return func(b *testing.B) {
			var seed atomic.Int64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				rnd := rand.New(rand.NewSource(seed.Add(1)))
				for pb.Next() {
					if !read(keys[rnd.Intn(n)]) {
						b.Fatal("missing key")
					}
				}
			})
		}
	}
	cacheGet := func(sem resourceversion.Semantics) func(string) bool {
		return func(k string) bool {
			res, err := c.Get(ctx, k, resourceversion.Get{Semantics: sem})
			return err == nil && res.Entry != nil
		}
	}
	b.Run("cache/Any", get(cacheGet(resourceversion.Any)))
	b.Run("cache/MostRecent", get(cacheGet(resourceversion.MostRecent)))
	b.Run("store/raw", get(func(k string) bool {
		g, err := s.Get(ctx, k, storage.GetOptions{})
		return err == nil && g.KV != nil
	}))
	b.Run("store/decoded", get(func(k string) bool {
		g, err := s.Get(ctx, k, storage.GetOptions{})
		if err != nil || g.KV == nil {
			return false
		}
		_, err = decodeWidget(g.KV)
		return err == nil
	}))
}
