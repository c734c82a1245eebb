package watch_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// progress is the test stores' progress-notification interval.
const progress = 5 * time.Millisecond

// waitLong bounds every wait for something that must happen.
const waitLong = 10 * time.Second

const prefix = "/widgets/"

func newStore(t testing.TB, opts memory.Options) *memory.Store {
	if opts.ProgressInterval == 0 {
		opts.ProgressInterval = progress
	}
	s := memory.New(opts)
	t.Cleanup(s.Close)
	return s
}

// newCache starts a cache of prefix and waits until it is ready.
func newCache(t testing.TB, s storage.Interface, opts watch.Options) *watch.Cache {
	c := watch.New(s, prefix, opts)
	t.Cleanup(c.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	if err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

func put(t testing.TB, s storage.Interface, key, value string) int64 {
	t.Helper()
	ctx := context.Background()
	g, err := s.Get(ctx, key, storage.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var expected int64
	if g.KV != nil {
		expected = g.KV.ModRevision
	}
	resp, err := s.OptimisticPut(ctx, key, []byte(value), expected, storage.PutOptions{})
	if err != nil || !resp.Succeeded {
		t.Fatalf("put %s: %+v, %v", key, resp, err)
	}
	return resp.Revision
}

func del(t testing.TB, s storage.Interface, key string) int64 {
	t.Helper()
	ctx := context.Background()
	g, err := s.Get(ctx, key, storage.GetOptions{})
	if err != nil || g.KV == nil {
		t.Fatalf("delete %s: %+v, %v", key, g, err)
	}
	resp, err := s.OptimisticDelete(ctx, key, g.KV.ModRevision, storage.DeleteOptions{})
	if err != nil || !resp.Succeeded {
		t.Fatalf("delete %s: %+v, %v", key, resp, err)
	}
	return resp.Revision
}

func key(i int) string { return fmt.Sprintf("%sdefault/w%04d", prefix, i) }

// next returns the watcher's next event, failing after waitLong.
func next(t testing.TB, w *watch.Watcher) (watch.Event, bool) {
	t.Helper()
	select {
	case ev, ok := <-w.Events():
		return ev, ok
	case <-time.After(waitLong):
		t.Fatalf("no event after %v", waitLong)
		return watch.Event{}, false
	}
}

// collect reads n events that are not bookmarks.
func collect(t testing.TB, w *watch.Watcher, n int) []watch.Event {
	t.Helper()
	var out []watch.Event
	for len(out) < n {
		ev, ok := next(t, w)
		if !ok {
			t.Fatalf("watch closed after %d of %d events: %v", len(out), n, w.Err())
		}
		if ev.Type != watch.Bookmark {
			out = append(out, ev)
		}
	}
	return out
}

// noEvent checks that nothing arrives for a short while.
func noEvent(t testing.TB, w *watch.Watcher) {
	t.Helper()
	select {
	case ev, ok := <-w.Events():
		t.Fatalf("unexpected event %v %+v (open %v)", ev.Type, ev, ok)
	case <-time.After(30 * time.Millisecond):
	}
}

// closed waits for the watcher's channel to close, skipping events, and
// returns its error.
func closed(t testing.TB, w *watch.Watcher) error {
	t.Helper()
	for {
		if _, ok := next(t, w); !ok {
			return w.Err()
		}
	}
}

func describe(ev watch.Event) string {
	if ev.Entry == nil {
		return fmt.Sprintf("%v@%d", ev.Type, ev.Revision)
	}
	return fmt.Sprintf("%v %s=%s@%d", ev.Type, ev.Entry.KV.Key, ev.Entry.KV.Value, ev.Revision)
}

// fakeClock is a Clock that moves only when told to.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	tickers []*fakeTicker
}

type fakeTicker struct {
	c       chan time.Time
	d       time.Duration
	next    time.Time
	stopped atomic.Bool
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1e9, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTicker(d time.Duration) watch.Ticker {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTicker{c: make(chan time.Time, 1), d: d, next: c.now.Add(d)}
	c.tickers = append(c.tickers, t)
	return t
}

// Step moves the clock and fires the tickers that are due.
func (c *fakeClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	for _, t := range c.tickers {
		if t.stopped.Load() || c.now.Before(t.next) {
			continue
		}
		select {
		case t.c <- c.now:
		default:
		}
		for !c.now.Before(t.next) {
			t.next = t.next.Add(t.d)
		}
	}
}

func (t *fakeTicker) C() <-chan time.Time { return t.c }
func (t *fakeTicker) Stop()               { t.stopped.Store(true) }

// faultStore wraps a store to count reads, pause the watches it serves
// and break them with an error.
type faultStore struct {
	storage.Interface
	lists, gets atomic.Int64

	mu     sync.Mutex
	gate   chan struct{} // while not nil, watches forward nothing
	breaks []chan error
}

func (s *faultStore) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResponse, error) {
	s.lists.Add(1)
	return s.Interface.List(ctx, prefix, opts)
}

func (s *faultStore) Get(ctx context.Context, key string, opts storage.GetOptions) (storage.GetResponse, error) {
	s.gets.Add(1)
	return s.Interface.Get(ctx, key, opts)
}

// pause holds back every watch response until resume. It first waits
// for a watch to be running: a cache starts its upstream watch only after
// its list is published, and a break sent before that would be lost.
func (s *faultStore) pause() {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		s.mu.Lock()
		if len(s.breaks) > 0 || time.Now().After(deadline) {
			break
		}
		s.mu.Unlock()
	}
	defer s.mu.Unlock()
	s.gate = make(chan struct{})
}

func (s *faultStore) resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.gate)
	s.gate = nil
}

// breakWatches ends every running watch with err.
func (s *faultStore) breakWatches(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.breaks {
		select {
		case b <- err:
		default:
		}
	}
	s.breaks = nil
}

func (s *faultStore) Watch(ctx context.Context, prefix string, opts storage.WatchOptions) <-chan storage.WatchResponse {
	inner := s.Interface.Watch(ctx, prefix, opts)
	out := make(chan storage.WatchResponse)
	brk := make(chan error, 1)
	s.mu.Lock()
	s.breaks = append(s.breaks, brk)
	s.mu.Unlock()
	go func() {
		defer close(out)
		for {
			select {
			case err := <-brk:
				select {
				case out <- storage.WatchResponse{Err: err}:
				case <-ctx.Done():
				}
				return
			case resp, ok := <-inner:
				if !ok {
					return
				}
				// A break sent while this goroutine was waking
				// comes first, whatever the gate says by now.
				s.mu.Lock()
				gate := s.gate
				s.mu.Unlock()
				select {
				case err := <-brk:
					resp = storage.WatchResponse{Err: err}
					gate = nil
				default:
				}
				if gate != nil {
					select {
					case <-gate:
					case err := <-brk:
						resp = storage.WatchResponse{Err: err}
					case <-ctx.Done():
						return
					}
				}
				select {
				case out <- resp:
				case <-ctx.Done():
					return
				}
				if resp.Err != nil {
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
