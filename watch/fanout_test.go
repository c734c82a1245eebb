package watch_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// reader consumes a watcher on its own goroutine, recording every event
// and signalling each one.
type reader struct {
	w    *watch.Watcher
	got  chan watch.Event
	mu   sync.Mutex
	evs  []watch.Event
	done chan struct{}
}

func startReader(w *watch.Watcher) *reader {
	r := &reader{w: w, got: make(chan watch.Event, 1000), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for ev := range w.Events() {
			r.mu.Lock()
			r.evs = append(r.evs, ev)
			r.mu.Unlock()
			r.got <- ev
		}
	}()
	return r
}

// waitErr polls until the watcher has ended, without taking its events,
// and returns why it ended.
func waitErr(t *testing.T, w *watch.Watcher) error {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for time.Now().Before(deadline) {
		if err := w.Err(); err != nil {
			return err
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("watcher did not end")
	return nil
}

// TestStalledWatcher: a watcher whose consumer takes nothing for
// StallTimeout ends with ErrTooSlow after delivering a gap-free prefix of
// its events; one that stalls for less and resumes gets everything; the
// others get every event in order all along.
func TestStalledWatcher(t *testing.T) {
	const buffer, stall, n = 3, 5 * time.Second, 20
	clock := newFakeClock()
	ctr := new(watch.Counters)
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{WatcherBuffer: buffer, StallTimeout: stall, Clock: clock, Counters: ctr})
	stalled, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Stop()
	paused, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer paused.Stop()
	var fast []*reader
	for range 3 {
		w, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		fast = append(fast, startReader(w))
	}
	var revs []int64
	for i := range n {
		revs = append(revs, put(t, s, key(i%5), fmt.Sprint(i)))
		for _, r := range fast { // each write reaches the fast ones at once
			select {
			case <-r.got:
			case <-time.After(waitLong):
				t.Fatalf("a fast watcher is stuck at event %d", i)
			}
		}
	}
	// Both slow watchers now hold a full channel and the next event: let
	// their goroutines reach the blocked send before the clock moves.
	for len(stalled.Events()) < buffer || len(paused.Events()) < buffer {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	for range int(stall/time.Second) - 1 {
		clock.Step(time.Second)
		time.Sleep(20 * time.Millisecond)
	}
	if stalled.Err() != nil || paused.Err() != nil {
		t.Fatalf("ended before the stall timeout: %v, %v", stalled.Err(), paused.Err())
	}
	// The paused consumer resumes in time and misses nothing.
	checkRevisions(t, "paused", collect(t, paused, n), revs)

	clock.Step(time.Second) // the stall timeout is reached
	if err := waitErr(t, stalled); !errors.Is(err, watch.ErrTooSlow) {
		t.Fatalf("stalled watcher ended with %v", err)
	}
	var prefixEvents []watch.Event
	for ev := range stalled.Events() {
		prefixEvents = append(prefixEvents, ev)
	}
	if len(prefixEvents) != buffer {
		t.Fatalf("stalled watcher delivered %d events after it ended, want its %d buffered", len(prefixEvents), buffer)
	}
	checkRevisions(t, "stalled", prefixEvents, revs[:buffer])
	if got := ctr.SlowWatchers(); got != 1 {
		t.Fatalf("SlowWatchers() = %d, want 1", got)
	}

	// Later writes still reach the fast watchers, in order.
	revs = append(revs, put(t, s, key(0), "last"))
	for i, r := range fast {
		<-r.got
		r.mu.Lock()
		checkRevisions(t, fmt.Sprint("fast ", i), r.evs, revs)
		r.mu.Unlock()
		if err := r.w.Err(); err != nil {
			t.Fatalf("fast watcher %d ended: %v", i, err)
		}
	}
}

func checkRevisions(t *testing.T, who string, got []watch.Event, want []int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d", who, len(got), len(want))
	}
	for i, ev := range got {
		if ev.Revision != want[i] {
			t.Fatalf("%s: event %d at revision %d, want %d", who, i, ev.Revision, want[i])
		}
	}
}

// TestEncodedOnce: N changes delivered to W watchers in two media types
// are encoded 2N times, and every watcher gets the same bytes.
func TestEncodedOnce(t *testing.T) {
	const watchers, n = 50, 40
	mediaTypes := []string{"application/json", "table"}
	ctr := new(watch.Counters)
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{Counters: ctr})
	type got struct {
		data [][]byte // by event, then media type
		err  error
	}
	results := make([]got, watchers)
	var wg sync.WaitGroup
	for i := range watchers {
		w, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				ev, ok := <-w.Events()
				if !ok {
					results[i].err = fmt.Errorf("closed: %v", w.Err())
					return
				}
				for _, mt := range mediaTypes {
					b, err := ev.Encoded(mt, func() ([]byte, error) {
						return fmt.Appendf(nil, "%s %v %s@%d", mt, ev.Type, ev.Entry.KV.Key, ev.Revision), nil
					})
					if err != nil {
						results[i].err = err
						return
					}
					results[i].data = append(results[i].data, b)
				}
			}
		}()
	}
	for i := range n {
		put(t, s, key(i%7), fmt.Sprint(i))
	}
	wg.Wait()
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("watcher %d: %v", i, r.err)
		}
		for j, b := range r.data {
			if &b[0] != &results[0].data[j][0] {
				t.Fatalf("watcher %d, encoding %d: not the bytes watcher 0 got", i, j)
			}
		}
	}
	if got, want := ctr.Encodings(), int64(n*len(mediaTypes)); got != want {
		t.Fatalf("Encodings() = %d for %d changes × %d watchers × %d media types, want %d", got, n, watchers, len(mediaTypes), want)
	}
}

// TestEncodedPerEventType: the same change is Added for a watcher whose
// filter it starts to pass and Modified for one without a filter: two
// encodings. Failed encodings are not kept; initial events are not
// shared.
func TestEncodedPerEventType(t *testing.T) {
	ctr := new(watch.Counters)
	s := newStore(t, memory.Options{})
	put(t, s, key(1), "plain")
	c := newCache(t, s, watch.Options{Counters: ctr})
	onlyX := func(e *watch.Entry) bool { return string(e.KV.Value) == "x" }
	filtered, _ := c.Watch(ctx, prefix, 0, watch.WatchOptions{Filter: onlyX})
	all, _ := c.Watch(ctx, prefix, 0, watch.WatchOptions{})
	defer filtered.Stop()
	defer all.Stop()
	put(t, s, key(1), "x")
	encode := func(ev watch.Event) func() ([]byte, error) {
		return func() ([]byte, error) { return []byte(ev.Type.String()), nil }
	}
	a, m := collect(t, filtered, 1)[0], collect(t, all, 1)[0]
	ab, _ := a.Encoded("json", encode(a))
	mb, _ := m.Encoded("json", encode(m))
	if string(ab) != "ADDED" || string(mb) != "MODIFIED" || ctr.Encodings() != 2 {
		t.Fatalf("got %q and %q with %d encodings", ab, mb, ctr.Encodings())
	}

	boom := errors.New("boom")
	if _, err := m.Encoded("yaml", func() ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("encode error lost: %v", err)
	}
	if b, _ := m.Encoded("yaml", func() ([]byte, error) { return []byte("ok"), nil }); string(b) != "ok" {
		t.Fatalf("encode error kept: %q", b)
	}

	before := ctr.Encodings()
	var calls atomic.Int64
	for range 2 {
		w, err := c.WatchWithInitialState(ctx, prefix, resourceversion.List{Semantics: resourceversion.Any}, watch.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ev := collect(t, w, 1)[0]
		w.Stop()
		ev.Encoded("json", func() ([]byte, error) { calls.Add(1); return nil, nil })
	}
	if calls.Load() != 2 || ctr.Encodings() != before {
		t.Fatalf("initial events: %d encode calls, %d counted", calls.Load(), ctr.Encodings()-before)
	}
}
