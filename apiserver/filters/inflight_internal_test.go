package filters

import (
	"context"
	"sync"
	"testing"
	"time"
)

// queuedIn waits until l has n requests waiting.
func queuedIn(t *testing.T, l *FairLimiter, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l.mu.Lock()
		q := l.queued
		l.mu.Unlock()
		if q == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests queued, want %d", q, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFairLimiterRoundRobin: with one seat, a user who queued five
// requests before another user queued one gets one seat, then the other
// user gets the next: freed seats go to the users in turn, not in order
// of arrival.
func TestFairLimiterRoundRobin(t *testing.T) {
	l := NewFairLimiter("mutating", 1, 10, time.Minute, nil)
	ctx := context.Background()
	if r := l.Acquire(ctx, "flood"); r != "" {
		t.Fatal(r)
	}
	granted := make(chan string, 10)
	var wg sync.WaitGroup
	enqueue := func(user string, n int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := l.Acquire(ctx, user); r != "" {
				t.Errorf("%s: rejected: %s", user, r)
				return
			}
			granted <- user
		}()
		queuedIn(t, l, n)
	}
	for i := 1; i <= 5; i++ {
		enqueue("flood", i)
	}
	enqueue("polite", 6)
	var order []string
	for range 6 {
		l.Release()
		order = append(order, <-granted)
	}
	l.Release()
	wg.Wait()
	if order[0] != "flood" || order[1] != "polite" {
		t.Errorf("seats went to %v; want flood, then polite", order)
	}
	if l.inUse != 0 || l.queued != 0 || len(l.flows) != 0 || len(l.turns) != 0 {
		t.Errorf("after all released: inUse %d queued %d flows %d turns %d", l.inUse, l.queued, len(l.flows), len(l.turns))
	}
}

// TestFairLimiterRejects covers the three ways a request is turned away:
// its user's queue is full, the queue timeout passes, its context ends.
// A rejected request leaves nothing behind.
func TestFairLimiterRejects(t *testing.T) {
	l := NewFairLimiter("readOnly", 1, 1, 50*time.Millisecond, nil)
	ctx := context.Background()
	if r := l.Acquire(ctx, "a"); r != "" {
		t.Fatal(r)
	}
	done := make(chan string)
	go func() { done <- l.Acquire(ctx, "a") }()
	queuedIn(t, l, 1)
	if r := l.Acquire(ctx, "a"); r != rejectQueueFull {
		t.Errorf("second queued request of a user: %q, want %q", r, rejectQueueFull)
	}
	if r := <-done; r != rejectTimeout {
		t.Errorf("after the queue timeout: %q, want %q", r, rejectTimeout)
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() { done <- l.Acquire(cctx, "b") }()
	queuedIn(t, l, 1)
	cancel()
	if r := <-done; r != rejectCancelled {
		t.Errorf("cancelled while queued: %q, want %q", r, rejectCancelled)
	}
	l.Release()
	if l.inUse != 0 || l.queued != 0 || len(l.flows) != 0 || len(l.turns) != 0 {
		t.Errorf("inUse %d queued %d flows %d turns %d", l.inUse, l.queued, len(l.flows), len(l.turns))
	}
	// The total bound: with a limit of 2 and a per-user length of 1, at
	// most 8 requests wait, whoever sends them.
	l = NewFairLimiter("readOnly", 2, 1, time.Minute, nil)
	l.Acquire(ctx, "x")
	l.Acquire(ctx, "x")
	cctx, cancel = context.WithCancel(ctx)
	defer cancel()
	for i, u := range []string{"u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8"} {
		go l.Acquire(cctx, u)
		queuedIn(t, l, i+1)
	}
	if r := l.Acquire(ctx, "u9"); r != rejectQueueFull {
		t.Errorf("beyond the total bound: %q, want %q", r, rejectQueueFull)
	}
}
