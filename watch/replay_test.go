package watch_test

import (
	"testing"

	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// TestWatchFromStoreHistory: a watch from a revision the small window no
// longer covers, but the store still holds, receives exactly the changes
// after it, in order, from the store's history and then from the window,
// while writes go on; with a filter, and for one key.
func TestWatchFromStoreHistory(t *testing.T) {
	s := newStore(t, memory.Options{HistoryWindow: 1 << 20})
	live := map[string]string{}
	early := writeOps(t, s, live, 30) // before the cache: not in its window
	// The window is small next to the history but holds the writes made
	// while a watcher replays, so that it does not fall behind the window
	// once it joins it (ErrTooSlow).
	c := newCache(t, s, watch.Options{EventWindow: 50})
	ops := append(early, writeOps(t, s, live, 200)...)
	if _, err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	only := func(k string) func(*watch.Entry) bool {
		return func(e *watch.Entry) bool { return e.KV.Key == k }
	}
	for _, tc := range []struct {
		name   string
		from   int // index of the last op already seen
		prefix string
		filter func(*watch.Entry) bool
		keep   func(op) bool
	}{
		{"before the cache started", 3, prefix, nil, nil},
		{"out of the window", 120, prefix, nil, nil},
		{"filtered", 20, prefix, only(key(1)), func(o op) bool { return o.key == key(1) }},
		{"one key", 40, key(2), nil, func(o op) bool { return o.key == key(2) }},
	} {
		ok := t.Run(tc.name, func(t *testing.T) {
			w, err := c.Watch(ctx, tc.prefix, ops[tc.from].rev, watch.WatchOptions{Filter: tc.filter, Bookmarks: true})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			// Writes go on while the watcher moves from the store's
			// history to the window.
			all := append(ops[:len(ops):len(ops)], writeOps(t, s, live, 30)...)
			var want []op
			for _, o := range all[tc.from+1:] {
				if tc.keep == nil || tc.keep(o) {
					want = append(want, o)
				}
			}
			got := collect(t, w, len(want))
			checkEvents(t, got, want)
			noEvent(t, w)
			ops = all
			// Having joined the window, it takes bookmark requests.
			cur, _ := c.Sync(ctx)
			w.RequestBookmark()
			if ev, _ := next(t, w); ev.Type != watch.Bookmark || ev.Revision < cur {
				t.Fatalf("got %s, want a bookmark at %d or later", describe(ev), cur)
			}
		})
		if !ok { // the next cases need this one's writes in ops
			return
		}
	}
}

// TestWatchFromCompactedHistory: a revision the store has compacted still
// gets 410 Expired, and a compaction under a replaying watcher ends it
// with 410 Expired once it reaches the compacted changes.
func TestWatchFromCompactedHistory(t *testing.T) {
	s := newStore(t, memory.Options{HistoryWindow: 1 << 20})
	live := map[string]string{}
	c := newCache(t, s, watch.Options{EventWindow: 5})
	ops := writeOps(t, s, live, 60)
	if _, err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(ctx, ops[30].rev); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Watch(ctx, prefix, ops[20].rev, watch.WatchOptions{}); !status.IsExpired(err) {
		t.Fatalf("watch from a compacted revision: %v, want 410 Expired", err)
	}
	w, err := c.Watch(ctx, prefix, ops[30].rev, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	checkEvents(t, collect(t, w, len(ops)-31), ops[31:])
}
