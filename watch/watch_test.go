package watch_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// op is one write a test made and the event it must produce.
type op struct {
	typ   watch.EventType
	key   string
	value string
	rev   int64
}

// writeOps makes n creates, updates and deletes of the keys in live and
// returns them. After the tenth, it writes a key under another prefix.
func writeOps(t *testing.T, s storage.Interface, live map[string]string, n int) []op {
	var ops []op
	for i := 0; i < n; i++ {
		if i == 10 {
			put(t, s, "/gadgets/g", fmt.Sprint(i))
		}
		k := key(i % 4)
		switch v, ok := live[k]; {
		case ok && i%3 == 0:
			ops = append(ops, op{watch.Deleted, k, v, del(t, s, k)})
			delete(live, k)
		case ok:
			v = fmt.Sprint(i)
			ops = append(ops, op{watch.Modified, k, v, put(t, s, k, v)})
			live[k] = v
		default:
			v = fmt.Sprint(i)
			ops = append(ops, op{watch.Added, k, v, put(t, s, k, v)})
			live[k] = v
		}
	}
	return ops
}

func checkEvents(t *testing.T, got []watch.Event, want []op) {
	t.Helper()
	for i, ev := range got {
		w := want[i]
		if ev.Type != w.typ || ev.Revision != w.rev || ev.Entry.KV.Key != w.key ||
			string(ev.Entry.KV.Value) != w.value || ev.Entry.KV.ModRevision != w.rev {
			t.Fatalf("event %d: %s, want %v %s=%s@%d", i, describe(ev), w.typ, w.key, w.value, w.rev)
		}
		if (ev.Prev == nil) != (w.typ == watch.Added) {
			t.Fatalf("event %d: %s with Prev %v", i, describe(ev), ev.Prev)
		}
	}
}

// TestWatchFromRevision: a watch from N gets exactly the changes after N,
// from the window and then live.
func TestWatchFromRevision(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{})
	start := c.Revision()
	live := map[string]string{}
	ops := writeOps(t, s, live, 30)
	c.Sync(ctx)
	for _, tc := range []struct {
		name string
		from int64
		skip int // ops at or before from
	}{
		{"cache start", start, 0},
		{"middle", ops[9].rev, 10},
		{"between revisions", ops[9].rev + 1, 10},
		{"last", ops[29].rev, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := c.Watch(ctx, prefix, tc.from, watch.WatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			checkEvents(t, collect(t, w, len(ops)-tc.skip), ops[tc.skip:])
			more := writeOps(t, s, live, 5)
			checkEvents(t, collect(t, w, 5), more)
			noEvent(t, w)
			ops = append(ops, more...)
		})
	}
}

// TestWatchStart covers where a watch may start: now, the future (waits),
// too far in the future (504) and older than the store's compaction (410).
func TestWatchStart(t *testing.T) {
	s := newStore(t, memory.Options{})
	before := put(t, s, key(9), "x")
	put(t, s, key(8), "x")
	c := newCache(t, s, watch.Options{EventWindow: 5, FreshnessTimeout: 300 * time.Millisecond})
	ops := writeOps(t, s, map[string]string{}, 20)
	cur, _ := c.Sync(ctx)
	if err := s.Compact(ctx, ops[12].rev); err != nil {
		t.Fatal(err)
	}

	t.Run("zero is now", func(t *testing.T) {
		w, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
		if err != nil || w.Revision() != cur {
			t.Fatalf("%v, revision %d", err, w.Revision())
		}
		defer w.Stop()
		noEvent(t, w)
	})
	t.Run("future waits", func(t *testing.T) {
		go func() {
			time.Sleep(20 * time.Millisecond)
			put(t, s, key(1), "future")
		}()
		w, err := c.Watch(ctx, prefix, cur+1, watch.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		noEvent(t, w) // the change at cur+1 is not after cur+1
		rev := put(t, s, key(1), "later")
		if ev := collect(t, w, 1)[0]; ev.Revision != rev {
			t.Fatalf("got %s", describe(ev))
		}
	})
	for _, tc := range []struct {
		name  string
		from  int64
		check func(error) bool
		msg   string
	}{
		{"far future", cur + 1000, status.IsTimeout, "Timeout: Too large resource version"},
		{"out of the window and compacted", ops[10].rev, status.IsExpired, fmt.Sprintf("too old resource version: %d (", ops[10].rev)},
		{"before the cache", before, status.IsExpired, fmt.Sprintf("too old resource version: %d (", before)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := c.Watch(ctx, prefix, tc.from, watch.WatchOptions{})
			if !tc.check(err) || !strings.HasPrefix(err.Error(), tc.msg) {
				t.Fatalf("got %v, %v", w, err)
			}
		})
	}
}

// TestInitialState starts watchers with initial state while writes
// happen; replaying each one's events must give the store's state, with
// no change missed or repeated, with and without a filter.
func TestInitialState(t *testing.T) {
	for _, tc := range []struct {
		name   string
		read   resourceversion.List
		filter func(*watch.Entry) bool
	}{
		{"most recent", resourceversion.List{Semantics: resourceversion.MostRecent}, nil},
		{"any", resourceversion.List{Semantics: resourceversion.Any}, nil},
		{"not older than", resourceversion.List{Semantics: resourceversion.NotOlderThan, Revision: 1}, nil},
		{"filtered", resourceversion.List{Semantics: resourceversion.MostRecent}, func(e *watch.Entry) bool { return e.KV.Value[0]%2 == 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t, memory.Options{HistoryWindow: 1 << 20})
			for i := 0; i < 50; i++ {
				put(t, s, key(i), fmt.Sprint(i))
			}
			// The watchers are read only after the churn stops: the
			// window must hold all of it.
			c := newCache(t, s, watch.Options{EventWindow: 1 << 20})
			stop := churn(t, s, 80)
			var watchers []*watch.Watcher
			var states []map[string]int64
			for i := 0; i < 20; i++ {
				put(t, s, key(100+i), "between")
				w, err := c.WatchWithInitialState(ctx, prefix, tc.read, watch.WatchOptions{Filter: tc.filter, InitialEventsEnd: true})
				if err != nil {
					t.Fatal(err)
				}
				defer w.Stop()
				states = append(states, initialState(t, s, w, tc.filter))
				watchers = append(watchers, w)
			}
			stop()
			final, _ := c.Sync(ctx)
			for i, w := range watchers {
				w.RequestBookmark()
				at := replay(t, w, states[i], final)
				checkState(t, s, states[i], at, tc.filter)
			}
		})
	}
}

// initialState reads a watcher's initial events up to the end bookmark
// and checks them against the store at that revision.
func initialState(t *testing.T, s storage.Interface, w *watch.Watcher, filter func(*watch.Entry) bool) map[string]int64 {
	t.Helper()
	state := map[string]int64{}
	for {
		ev, _ := next(t, w)
		if ev.Type == watch.Bookmark {
			if !ev.InitialEventsEnd || ev.Revision != w.Revision() {
				t.Fatalf("bookmark %+v, watch at %d", ev, w.Revision())
			}
			checkState(t, s, state, ev.Revision, filter)
			return state
		}
		if ev.Type != watch.Added || state[ev.Entry.KV.Key] != 0 || ev.Revision > w.Revision() {
			t.Fatalf("initial event %s", describe(ev))
		}
		state[ev.Entry.KV.Key] = ev.Entry.KV.ModRevision
	}
}

// replay applies a watcher's events to state until a bookmark at or after
// rev, checking that each one fits, and returns the bookmark's revision.
func replay(t *testing.T, w *watch.Watcher, state map[string]int64, rev int64) int64 {
	t.Helper()
	last := w.Revision()
	for {
		ev, ok := next(t, w)
		if !ok {
			t.Fatalf("closed: %v", w.Err())
		}
		if ev.Revision <= last && !(ev.Type == watch.Bookmark && ev.Revision == last) {
			t.Fatalf("%s after revision %d", describe(ev), last)
		}
		last = ev.Revision
		k := ""
		if ev.Entry != nil {
			k = ev.Entry.KV.Key
		}
		_, present := state[k]
		switch ev.Type {
		case watch.Bookmark:
			if ev.Revision >= rev {
				return ev.Revision
			}
		case watch.Added:
			if present {
				t.Fatalf("%s: already present", describe(ev))
			}
			state[k] = ev.Revision
		case watch.Modified:
			if !present {
				t.Fatalf("%s: not present", describe(ev))
			}
			state[k] = ev.Revision
		case watch.Deleted:
			if !present {
				t.Fatalf("%s: not present", describe(ev))
			}
			delete(state, k)
		}
	}
}

// checkState compares state with the store's filtered keys at rev.
func checkState(t *testing.T, s storage.Interface, state map[string]int64, rev int64, filter func(*watch.Entry) bool) {
	t.Helper()
	l, err := s.List(ctx, prefix, storage.ListOptions{Revision: rev})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, kv := range l.KVs {
		if filter != nil && !filter(&watch.Entry{KV: kv}) {
			continue
		}
		n++
		if state[kv.Key] != kv.ModRevision {
			t.Fatalf("at %d: %s is at %d, replay has %d", rev, kv.Key, kv.ModRevision, state[kv.Key])
		}
	}
	if n != len(state) {
		t.Fatalf("at %d: store has %d keys, replay %d", rev, n, len(state))
	}
}

// TestFilterTransitions checks how changes across a filter are delivered.
func TestFilterTransitions(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{})
	red := func(e *watch.Entry) bool { return strings.HasPrefix(string(e.KV.Value), "red") }
	w, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{Filter: red})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	a, b := key(1), key(2)
	for _, tc := range []struct {
		name  string
		write func() int64
		typ   watch.EventType // 0: nothing delivered
		value string          // of the event's object
		prev  string
	}{
		{"create matching", func() int64 { return put(t, s, a, "red") }, watch.Added, "red", ""},
		{"leave filter", func() int64 { return put(t, s, a, "blue") }, watch.Deleted, "red", "red"},
		{"change outside", func() int64 { return put(t, s, a, "green") }, 0, "", ""},
		{"enter filter", func() int64 { return put(t, s, a, "red1") }, watch.Added, "red1", "green"},
		{"change inside", func() int64 { return put(t, s, a, "red2") }, watch.Modified, "red2", "red1"},
		{"delete matching", func() int64 { return del(t, s, a) }, watch.Deleted, "red2", "red2"},
		{"create outside", func() int64 { return put(t, s, b, "blue") }, 0, "", ""},
		{"delete outside", func() int64 { return del(t, s, b) }, 0, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rev := tc.write()
			if tc.typ == 0 {
				noEvent(t, w)
				return
			}
			ev := collect(t, w, 1)[0]
			if ev.Type != tc.typ || ev.Revision != rev || string(ev.Entry.KV.Value) != tc.value || ev.Entry.KV.ModRevision != rev {
				t.Fatalf("got %s (object at %d)", describe(ev), ev.Entry.KV.ModRevision)
			}
			if prev := ""; ev.Prev != nil {
				if prev = string(ev.Prev.KV.Value); prev != tc.prev {
					t.Fatalf("prev %q", prev)
				}
			} else if tc.prev != "" {
				t.Fatal("no prev")
			}
		})
	}
}

// TestOneKey watches a single key: a prefix that does not end in "/".
func TestOneKey(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{})
	put(t, s, prefix+"ns/ab", "x")
	put(t, s, prefix+"ns/a", "x")
	w, err := c.WatchWithInitialState(ctx, prefix+"ns/a", resourceversion.List{Semantics: resourceversion.MostRecent}, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	put(t, s, prefix+"ns/abc", "y")
	rev := put(t, s, prefix+"ns/a", "y")
	evs := collect(t, w, 2)
	if evs[0].Type != watch.Added || evs[0].Entry.KV.Key != prefix+"ns/a" || evs[1].Revision != rev {
		t.Fatalf("got %s, %s", describe(evs[0]), describe(evs[1]))
	}
	noEvent(t, w)
}

// TestSlowWatcher: a watcher whose consumer does not read ends with
// ErrTooSlow once it falls out of the window; others get every event.
func TestSlowWatcher(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{EventWindow: 50, WatcherBuffer: 5})
	slow, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var fast []*watch.Watcher
	for i := 0; i < 3; i++ {
		w, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		fast = append(fast, w)
	}
	// The fast consumers keep up: each write waits until they all have it.
	got := make(chan struct{})
	for _, w := range fast {
		go func() {
			for range w.Events() {
				got <- struct{}{}
			}
		}()
	}
	for i := 0; i < 200; i++ {
		put(t, s, key(i%10), fmt.Sprint(i))
		for range fast {
			select {
			case <-got:
			case <-time.After(waitLong):
				t.Fatalf("a fast watcher is stuck at event %d", i)
			}
		}
	}
	n := 0
	for range slow.Events() {
		n++
	}
	if !errors.Is(slow.Err(), watch.ErrTooSlow) || n > 10 {
		t.Fatalf("slow watcher got %d events and %v", n, slow.Err())
	}
	for _, w := range fast {
		if err := w.Err(); err != nil {
			t.Fatalf("a fast watcher ended with %v", err)
		}
	}
}

// TestManyWatchers: 1,000 watchers all receive every event of a burst
// larger than their buffers.
func TestManyWatchers(t *testing.T) {
	const watchers, burst = 1000, 300
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{})
	var wg sync.WaitGroup
	errs := make(chan error, watchers)
	for i := 0; i < watchers; i++ {
		w, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		wg.Add(1)
		go func() {
			defer wg.Done()
			var last int64
			for n := 0; n < burst; n++ {
				ev, ok := <-w.Events()
				if !ok || ev.Revision <= last {
					errs <- fmt.Errorf("event %d: %s (open %v, err %v)", n, describe(ev), ok, w.Err())
					return
				}
				last = ev.Revision
			}
		}()
	}
	for i := 0; i < burst; i++ {
		put(t, s, key(i%50), fmt.Sprint(i))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestBookmarks(t *testing.T) {
	clock := newFakeClock()
	s := newStore(t, memory.Options{})
	put(t, s, key(1), "a")
	c := newCache(t, s, watch.Options{Clock: clock})
	with, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{Bookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer with.Stop()
	without, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer without.Stop()
	bookmark := func(w *watch.Watcher, atLeast int64) {
		t.Helper()
		ev, _ := next(t, w)
		if ev.Type != watch.Bookmark || ev.Revision < atLeast || ev.Entry != nil {
			t.Fatalf("got %s, want a bookmark at %d or later", describe(ev), atLeast)
		}
	}

	clock.Step(watch.DefaultBookmarkInterval)
	bookmark(with, c.Revision())
	noEvent(t, without)

	without.RequestBookmark()
	bookmark(without, c.Revision())

	rev := put(t, s, "/gadgets/g", "x") // progress, nothing new under the prefix
	bookmark(with, rev)
	put(t, s, "/gadgets/g", "y") // within a second of the last progress bookmark
	noEvent(t, with)
	clock.Step(time.Second)
	rev = put(t, s, "/gadgets/g", "z")
	bookmark(with, rev)
	noEvent(t, without)

	w, err := c.WatchWithInitialState(ctx, prefix, resourceversion.List{Semantics: resourceversion.Any}, watch.WatchOptions{InitialEventsEnd: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if ev, _ := next(t, w); ev.Type != watch.Added || ev.Entry.KV.Key != key(1) {
		t.Fatalf("got %s", describe(ev))
	}
	if ev, _ := next(t, w); ev.Type != watch.Bookmark || !ev.InitialEventsEnd || ev.Revision != w.Revision() {
		t.Fatalf("got %+v, watch at %d", ev, w.Revision())
	}
}

func TestWatcherStop(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{})
	wctx, cancel := context.WithCancel(ctx)
	byCtx, err := c.Watch(wctx, prefix, 0, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	byStop, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	byStop.Stop()
	byStop.Stop()
	for _, w := range []*watch.Watcher{byCtx, byStop} {
		if err := closed(t, w); err != nil {
			t.Fatalf("ended with %v", err)
		}
	}
}
