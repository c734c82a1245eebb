package watch_test

import (
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// TestEventWindowBytes writes many large objects and checks that the
// window holds at most EventWindowBytes of them (273 writes of 2.5 MB
// once took a server to 1.5 GB), and that the bound keeps the window's
// guarantees: a watch from before the dropped events is served from the
// store's history, one from inside the window from the window, each with
// every later event in order.
func TestEventWindowBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	const size, writes, limit = 1 << 20, 64, 8 << 20
	write := func(s *memory.Store, revs []int64) {
		for i := range revs {
			revs[i] = put(t, s, key(i%4), strings.Repeat(string(rune('a'+i%26)), size))
		}
	}
	// What the store alone keeps of the same writes.
	alone := newStore(t, memory.Options{})
	before := heap()
	write(alone, make([]int64, writes))
	storeOnly := heap() - before
	alone.Close()

	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{EventWindowBytes: limit})
	start := c.Revision()
	before = heap()
	revs := make([]int64, writes)
	write(s, revs)
	c.Sync(ctx)
	held := heap() - before - storeOnly
	st := c.Stats()
	t.Logf("%d writes of %d bytes: window holds %d events, %d bytes; the cache kept %d bytes beyond the store's %d", writes, size, st.WindowEvents, st.WindowBytes, held, storeOnly)
	if st.WindowBytes > limit || st.WindowEvents == 0 || st.WindowEvents >= writes {
		t.Fatalf("window holds %d events, %d bytes; want at most %d bytes", st.WindowEvents, st.WindowBytes, limit)
	}
	// The window, with room for the mirror's 4 objects had they their
	// own copies.
	if max := int64(limit + 4*size); held > max {
		t.Errorf("the cache kept %d bytes after %d writes of %d, over %d", held, writes, size, max)
	}

	// A watch from before the window is served from the store's history
	// and misses nothing.
	old, err := c.Watch(ctx, prefix, start, watch.WatchOptions{})
	if err != nil {
		t.Fatalf("watch from before the window: %v", err)
	}
	for i, ev := range collect(t, old, writes) {
		if ev.Revision != revs[i] {
			t.Fatalf("event %d: %s, want revision %d", i, describe(ev), revs[i])
		}
	}
	old.Stop()
	// Once the store has compacted those revisions, the watch is told
	// 410 Expired.
	if err := s.Compact(ctx, revs[writes-5]); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Watch(ctx, prefix, start, watch.WatchOptions{}); !status.IsExpired(err) {
		t.Fatalf("watch from before the compaction: %v, want 410 Expired", err)
	}
	from := revs[writes-3]
	w, err := c.Watch(ctx, prefix, from, watch.WatchOptions{})
	if err != nil {
		t.Fatalf("watch from inside the window: %v", err)
	}
	defer w.Stop()
	for i, ev := range collect(t, w, 2) {
		if ev.Revision != revs[writes-2+i] {
			t.Fatalf("event %d: %s, want revision %d", i, describe(ev), revs[writes-2+i])
		}
	}
	noEvent(t, w)
}
