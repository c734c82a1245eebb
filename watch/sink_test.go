package watch_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// recordingSink records what a watcher hands it: "E<rev>" for each event
// and "|" for each flush. It fails Send with fail once asked to.
type recordingSink struct {
	mu      sync.Mutex
	calls   []string
	held    bool // events were sent since the last flush
	flushed chan struct{}
	fail    error
}

func (s *recordingSink) Send(ev watch.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.calls = append(s.calls, fmt.Sprintf("E%d", ev.Revision))
	s.held = true
	return nil
}

// Flush records a flush that has something to flush (a watcher woken by
// progress flushes too).
func (s *recordingSink) Flush() error {
	s.mu.Lock()
	if s.held {
		s.calls = append(s.calls, "|")
		s.held = false
	}
	s.mu.Unlock()
	select {
	case s.flushed <- struct{}{}:
	default:
	}
	return nil
}

func (s *recordingSink) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.calls
	s.calls = nil
	return c
}

// waitFlush waits until the sink has been flushed with n events in all.
func (s *recordingSink) waitFlush(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	deadline := time.After(waitLong)
	for {
		got = append(got, s.take()...)
		events := 0
		for _, c := range got {
			if c != "|" {
				events++
			}
		}
		if events >= n && len(got) > 0 && got[len(got)-1] == "|" {
			return got
		}
		select {
		case <-s.flushed:
		case <-deadline:
			t.Fatalf("sink has %q, want %d events and a flush", got, n)
		}
	}
}

// TestSinkTakesEvents: a watcher with a Sink hands it the events in
// order on its own goroutine, flushes it when it has caught up, sends
// nothing on its channel, and closes the channel when the watch ends,
// with the Sink's error when Send fails.
func TestSinkTakesEvents(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{})
	sink := &recordingSink{flushed: make(chan struct{}, 1)}
	w, err := c.Watch(context.Background(), prefix, 0, watch.WatchOptions{Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	r1 := put(t, s, key(1), "a")
	got := sink.waitFlush(t, 1)
	if want := fmt.Sprintf("E%d", r1); len(got) < 2 || got[0] != want || got[len(got)-1] != "|" {
		t.Fatalf("sink got %q, want %s then a flush", got, want)
	}
	select {
	case ev, ok := <-w.Events():
		t.Fatalf("the channel of a Sink's watcher carried %v (open %v)", ev, ok)
	default:
	}

	failure := errors.New("peer gone")
	sink.mu.Lock()
	sink.fail = failure
	sink.mu.Unlock()
	put(t, s, key(2), "b")
	if err := closed(t, w); !errors.Is(err, failure) {
		t.Fatalf("watch ended with %v, want the Sink's %v", err, failure)
	}
}

// TestSpacingGathersChanges: changes that come within a watcher's
// Spacing of its last delivery are delivered together, in one flush,
// while the first change after a quiet spell goes out at once.
func TestSpacingGathersChanges(t *testing.T) {
	const spacing = 300 * time.Millisecond
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{})
	sink := &recordingSink{flushed: make(chan struct{}, 1)}
	w, err := c.Watch(context.Background(), prefix, 0, watch.WatchOptions{Sink: sink, Spacing: spacing})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	start := time.Now()
	r1 := put(t, s, key(1), "a")
	sink.waitFlush(t, 1)
	if d := time.Since(start); d >= spacing {
		t.Fatalf("the first change after a quiet spell took %v", d)
	}
	r2 := put(t, s, key(2), "b")
	time.Sleep(spacing / 6) // long enough for r2 to go out alone, without the spacing
	r3 := put(t, s, key(3), "c")
	got := sink.waitFlush(t, 2)
	want := []string{fmt.Sprintf("E%d", r2), fmt.Sprintf("E%d", r3), "|"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after E%d: sink got %q, want %q: two changes within the spacing, one flush", r1, got, want)
	}
}
