package filters

import (
	"context"
	"sync"
	"time"
)

// The reasons a request is turned away by the in-flight limit, as
// kube-apiserver's apiserver_flowcontrol_rejected_requests_total labels
// them.
const (
	rejectQueueFull = "queue-full"
	rejectTimeout   = "time-out"
	rejectCancelled = "cancelled"
)

// FairLimiter bounds the requests of one kind (read-only or mutating)
// served at once. A request that finds every seat taken waits in its
// flow's queue: one flow per user, all requests without a user sharing
// one. Freed seats go to the flows in turn, one request each (round
// robin), so a user who floods the server waits behind their own
// requests, not in front of everyone else's. Queues are bounded per flow
// and in total, and a request waits at most the queue timeout: beyond
// either it is rejected and answered 429.
type FairLimiter struct {
	kind    string // "readOnly" or "mutating", for the observer
	limit   int
	perFlow int // most requests one flow may have waiting
	// maxQueued is the most requests waiting in all flows: room for
	// several users' full queues, and a bound on the memory they hold.
	maxQueued int
	wait      time.Duration
	observe   func(kind string, n int) // nil: no observer

	mu     sync.Mutex
	inUse  int
	queued int
	flows  map[string]*flow
	turns  []*flow // flows with waiting requests, in serving order
}

// flow is one user's queue.
type flow struct {
	name    string
	waiters []*waiter
}

// waiter is a queued request; ready is closed when it is given a seat.
type waiter struct {
	ready   chan struct{}
	granted bool
}

// NewFairLimiter returns a limiter of limit seats for requests of one
// kind ("readOnly" or "mutating"), with queues of perFlow requests per
// user waiting at most wait; observe, when not nil, hears of the seats in
// use.
func NewFairLimiter(kind string, limit, perFlow int, wait time.Duration, observe func(string, int)) *FairLimiter {
	return &FairLimiter{kind: kind, limit: limit, perFlow: perFlow, maxQueued: 4 * max(limit, perFlow),
		wait: wait, observe: observe, flows: make(map[string]*flow)}
}

// Acquire takes a seat for a request of the named flow, waiting in the
// flow's queue if need be. It returns "" with the seat taken (release it
// with release), or the reason the request was rejected.
func (l *FairLimiter) Acquire(ctx context.Context, flowName string) string {
	l.mu.Lock()
	if l.inUse < l.limit && l.queued == 0 {
		l.inUse++
		n := l.inUse
		l.mu.Unlock()
		l.report(n)
		return ""
	}
	f := l.flows[flowName]
	if l.queued >= l.maxQueued || f != nil && len(f.waiters) >= l.perFlow {
		l.mu.Unlock()
		return rejectQueueFull
	}
	if f == nil {
		f = &flow{name: flowName}
		l.flows[flowName] = f
	}
	w := &waiter{ready: make(chan struct{})}
	if len(f.waiters) == 0 {
		l.turns = append(l.turns, f)
	}
	f.waiters = append(f.waiters, w)
	l.queued++
	l.mu.Unlock()

	timer := time.NewTimer(l.wait)
	defer timer.Stop()
	reason := rejectTimeout
	select {
	case <-w.ready:
		return ""
	case <-timer.C:
	case <-ctx.Done():
		reason = rejectCancelled
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if w.granted { // given a seat as the wait ended: keep it
		return ""
	}
	l.dequeue(f, w)
	return reason
}

// Release frees a seat and hands it to the next flow in turn.
func (l *FairLimiter) Release() {
	l.mu.Lock()
	l.inUse--
	for l.inUse < l.limit && len(l.turns) > 0 {
		f := l.turns[0]
		l.turns = l.turns[1:]
		w := f.waiters[0]
		f.waiters[0] = nil
		f.waiters = f.waiters[1:]
		l.queued--
		if len(f.waiters) > 0 {
			l.turns = append(l.turns, f) // its next request waits for its next turn
		} else {
			delete(l.flows, f.name)
		}
		w.granted = true
		l.inUse++
		close(w.ready)
	}
	n := l.inUse
	l.mu.Unlock()
	l.report(n)
}

// dequeue removes a waiter that gave up; l.mu is held.
func (l *FairLimiter) dequeue(f *flow, w *waiter) {
	for i, x := range f.waiters {
		if x == w {
			f.waiters = append(f.waiters[:i], f.waiters[i+1:]...)
			l.queued--
			break
		}
	}
	if len(f.waiters) > 0 {
		return
	}
	delete(l.flows, f.name)
	for i, x := range l.turns {
		if x == f {
			l.turns = append(l.turns[:i], l.turns[i+1:]...)
			break
		}
	}
}

func (l *FairLimiter) report(n int) {
	if l.observe != nil {
		l.observe(l.kind, n)
	}
}

// Kind is the kind of requests the limiter bounds: "readOnly" or
// "mutating".
func (l *FairLimiter) Kind() string { return l.kind }
