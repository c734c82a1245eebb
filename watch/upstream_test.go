package watch_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

var errUnavailable = &storage.Error{Code: storage.ErrUnavailable, Err: errors.New("connection reset")}

// TestResume: when the upstream watch breaks and the cache can watch
// again from its revision, watchers continue without a gap.
func TestResume(t *testing.T) {
	fs := &faultStore{Interface: newStore(t, memory.Options{})}
	c := newCache(t, fs, watch.Options{})
	w, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	lists := fs.lists.Load()
	fs.pause()
	ops := writeOps(t, fs, map[string]string{}, 8)
	fs.breakWatches(errUnavailable)
	fs.resume()
	checkEvents(t, collect(t, w, len(ops)), ops)
	more := writeOps(t, fs, map[string]string{key(0): ops[len(ops)-4].value, key(1): ops[len(ops)-3].value}, 2)
	checkEvents(t, collect(t, w, 2), more)
	if fs.lists.Load() != lists {
		t.Fatal("the cache listed again")
	}
}

// TestRelist: when the cache's revision has been compacted, it lists
// again; its watchers end with 410 Expired and reads see the new state.
func TestRelist(t *testing.T) {
	fs := &faultStore{Interface: newStore(t, memory.Options{})}
	put(t, fs, key(0), "a")
	put(t, fs, key(1), "b")
	c := newCache(t, fs, watch.Options{})
	old := c.Revision()
	e0, _ := c.Get(ctx, key(0), resourceversion.Get{Semantics: resourceversion.Any})
	w, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lists := fs.lists.Load()
	fs.pause()
	put(t, fs, key(2), "c")
	del(t, fs, key(1))
	rev := put(t, fs, key(3), "d")
	if err := fs.Compact(ctx, rev-1); err != nil {
		t.Fatal(err)
	}
	fs.breakWatches(errUnavailable)
	fs.resume()

	if err := closed(t, w); !status.IsExpired(err) {
		t.Fatalf("watcher ended with %v", err)
	}
	if fs.lists.Load() == lists {
		t.Fatal("no list")
	}
	res, err := c.List(ctx, prefix, watch.ListOptions{List: resourceversion.List{Semantics: resourceversion.MostRecent}})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := fs.Interface.List(ctx, prefix, storage.ListOptions{})
	sameKVs(t, res, want)
	if res.Entries[0] != e0.Entry {
		t.Fatal("the unchanged entry was not kept")
	}
	if _, err := c.Watch(ctx, prefix, old, watch.WatchOptions{}); !status.IsExpired(err) {
		t.Fatalf("watch from before the list: %v", err)
	}
	w, err = c.Watch(ctx, prefix, 0, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	rev = put(t, fs, key(4), "e")
	if ev := collect(t, w, 1)[0]; ev.Revision != rev {
		t.Fatalf("got %s", describe(ev))
	}
}

// TestCompactedAtRevision: the memory store refuses a watch from its
// compacted revision, so after Compact at the cache's revision the cache
// cannot watch until the store moves on; it keeps serving and its
// watchers stay open, then it lists again.
func TestCompactedAtRevision(t *testing.T) {
	fs := &faultStore{Interface: newStore(t, memory.Options{})}
	c := newCache(t, fs, watch.Options{})
	w, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	rev := put(t, fs, key(1), "a")
	collect(t, w, 1)
	if err := fs.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	fs.breakWatches(errUnavailable)
	time.Sleep(50 * time.Millisecond)
	lists := fs.lists.Load()
	if lists > 20 {
		t.Fatalf("%d lists: no back-off", lists)
	}
	noEvent(t, w)
	rev = put(t, fs, key(2), "b")
	res, err := c.Get(ctx, key(2), resourceversion.Get{Semantics: resourceversion.MostRecent})
	if err != nil || res.Entry == nil || res.Entry.KV.ModRevision != rev {
		t.Fatalf("got %+v, %v", res, err)
	}
}

// TestWindowAge: events leave the window after EventWindowDuration.
func TestWindowAge(t *testing.T) {
	clock := newFakeClock()
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{Clock: clock})
	first := c.Revision()
	r1 := put(t, s, key(1), "a")
	put(t, s, key(2), "b")
	c.Sync(ctx)
	// Once the window no longer covers first, only the store could serve
	// it: compacted, it cannot.
	if err := s.Compact(ctx, r1); err != nil {
		t.Fatal(err)
	}
	w, err := c.Watch(ctx, prefix, first, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	clock.Step(watch.DefaultEventWindowDuration + time.Second)
	deadline := time.Now().Add(waitLong)
	for {
		_, err := c.Watch(ctx, prefix, first, watch.WatchOptions{})
		if status.IsExpired(err) {
			break
		}
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("watch from an aged-out revision: %v", err)
		}
		time.Sleep(time.Millisecond)
	}
	w, err = c.Watch(ctx, prefix, c.Revision(), watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	rev := put(t, s, key(3), "c")
	if ev := collect(t, w, 1)[0]; ev.Revision != rev {
		t.Fatalf("got %s", describe(ev))
	}
}

func TestStopped(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{})
	w, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.Stop()
	c.Stop()
	if err := closed(t, w); !errors.Is(err, watch.ErrStopped) {
		t.Fatalf("watcher: %v", err)
	}
	for name, err := range map[string]error{
		"ready": c.Ready(ctx),
		"get": func() error {
			_, err := c.Get(ctx, key(1), resourceversion.Get{Semantics: resourceversion.Any})
			return err
		}(),
		"list": func() error {
			_, err := c.List(ctx, prefix, watch.ListOptions{List: resourceversion.List{Semantics: resourceversion.NotOlderThan, Revision: 1}})
			return err
		}(),
		"watch": func() error { _, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{}); return err }(),
	} {
		if !errors.Is(err, watch.ErrStopped) {
			t.Errorf("%s after Stop: %v", name, err)
		}
	}
}

// TestNoGoroutineLeak stops watchers in every way, including blocked
// ones, then the cache and the store, and counts goroutines.
func TestNoGoroutineLeak(t *testing.T) {
	base := runtime.NumGoroutine()
	s := memory.New(memory.Options{ProgressInterval: progress})
	for i := 0; i < 300; i++ {
		put(t, s, key(i), "x")
	}
	c := watch.New(s, prefix, watch.Options{WatcherBuffer: 1, BookmarkInterval: time.Millisecond})
	wctx, cancel := context.WithCancel(ctx)
	var ws []*watch.Watcher
	for i := 0; i < 20; i++ {
		opts := watch.WatchOptions{Bookmarks: i%2 == 0}
		var w *watch.Watcher
		var err error
		if i%3 == 0 {
			w, err = c.WatchWithInitialState(wctx, prefix, resourceversion.List{Semantics: resourceversion.MostRecent}, opts)
		} else {
			w, err = c.Watch(wctx, prefix, 0, opts)
		}
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	for i := 0; i < 50; i++ {
		put(t, s, key(i), "y")
	}
	ws[1].Stop()
	cancel()
	for _, w := range ws {
		for range w.Events() {
		}
	}
	// Watchers still running (and blocked) when the cache stops end too.
	for i := 0; i < 5; i++ {
		if _, err := c.WatchWithInitialState(ctx, prefix, resourceversion.List{Semantics: resourceversion.Any}, watch.WatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c.Stop()
	s.Close()
	deadline := time.Now().Add(waitLong)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestEntryCaches checks that an entry decodes and encodes once and
// shares the result between concurrent callers.
func TestEntryCaches(t *testing.T) {
	var decodes atomic.Int64
	decode := func(kv *storage.KeyValue) (any, error) {
		decodes.Add(1)
		return string(kv.Value), nil
	}
	s := newStore(t, memory.Options{})
	put(t, s, key(1), "a")
	c := newCache(t, s, watch.Options{Decode: decode})
	res, err := c.Get(ctx, key(1), resourceversion.Get{Semantics: resourceversion.Any})
	if err != nil {
		t.Fatal(err)
	}
	e := res.Entry
	var encodes atomic.Int64
	var wg sync.WaitGroup
	results := make([][]byte, 64)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if obj, err := e.Object(); obj != "a" || err != nil {
				t.Errorf("Object() = %v, %v", obj, err)
			}
			mt := fmt.Sprint("mt", i%4)
			results[i], _ = e.Encoded(mt, func() ([]byte, error) {
				encodes.Add(1)
				return []byte(mt), nil
			})
		}()
	}
	wg.Wait()
	for i, b := range results {
		if string(b) != fmt.Sprint("mt", i%4) || &b[0] != &results[i%4][0] {
			t.Fatalf("result %d: %q not shared", i, b)
		}
	}
	if decodes.Load() == 0 || encodes.Load() < 4 {
		t.Fatalf("%d decodes, %d encodes", decodes.Load(), encodes.Load())
	}
	if _, err := e.Encoded("bad", func() ([]byte, error) { return nil, errors.New("boom") }); err == nil {
		t.Fatal("encode error lost")
	}
	if b, _ := e.Encoded("bad", func() ([]byte, error) { return []byte("ok"), nil }); string(b) != "ok" {
		t.Fatal("encode error kept")
	}
	// The same entry serves lists and watch events.
	l, _ := c.List(ctx, prefix, watch.ListOptions{})
	w, _ := c.WatchWithInitialState(ctx, prefix, resourceversion.List{Semantics: resourceversion.Any}, watch.WatchOptions{})
	defer w.Stop()
	if ev := collect(t, w, 1)[0]; l.Entries[0] != e || ev.Entry != e {
		t.Fatal("entry not shared")
	}
	n := decodes.Load()
	e.Object()
	if decodes.Load() != n {
		t.Fatal("decoded again")
	}
}
