package health

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"
)

// Shutdown tracks a server's graceful shutdown: whether it has begun
// (its [Shutdown.Check] fails, so /readyz does), the requests in flight,
// which it turns away once draining, and the end of long-running
// requests such as watches.
type Shutdown struct {
	shuttingDown atomic.Bool // the "shutdown" check fails
	active       activeRequests
	// longRunning is cancelled when shutdown ends the open watches.
	longRunning    context.Context
	endLongRunning context.CancelFunc
}

// NewShutdown returns the state of a server that is not shutting down.
func NewShutdown() *Shutdown {
	s := &Shutdown{}
	s.longRunning, s.endLongRunning = context.WithCancel(context.Background())
	s.active.idle = make(chan struct{}, 1)
	return s
}

// Check is kube-apiserver's "shutdown" readiness check: it fails once
// shutdown has begun.
func (s *Shutdown) Check() Check {
	return Check{Name: "shutdown", Check: func(*http.Request) error {
		if s.shuttingDown.Load() {
			return errors.New("the server is shutting down")
		}
		return nil
	}}
}

// Enter counts a request in; false once draining, when the request must
// be turned away. A request counted in calls Leave when it is done.
func (s *Shutdown) Enter() bool { return s.active.enter() }

// Leave counts a request out.
func (s *Shutdown) Leave() { s.active.leave() }

// LongRunning is cancelled when shutdown ends the long-running requests;
// a watch ends with it.
func (s *Shutdown) LongRunning() context.Context { return s.longRunning }

// Run shuts down: the "shutdown" check fails at once, every request is
// still served for delay (so that load balancers stop sending new ones
// first), then new requests are turned away, long-running ones are ended
// and Run waits for those in flight. It returns ctx's error if ctx ends
// first.
func (s *Shutdown) Run(ctx context.Context, delay time.Duration) error {
	s.shuttingDown.Store(true)
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	s.active.draining.Store(true)
	s.endLongRunning()
	return s.active.wait(ctx)
}

// activeRequests counts the requests being served (probes aside), so that
// shutdown can wait for them, and turns new ones away once draining.
type activeRequests struct {
	n        atomic.Int64
	draining atomic.Bool
	idle     chan struct{} // buffered: signalled when n drops to 0 while draining
}

// enter counts a request in; false once draining.
func (a *activeRequests) enter() bool {
	a.n.Add(1)
	if a.draining.Load() {
		a.leave()
		return false
	}
	return true
}

func (a *activeRequests) leave() {
	if a.n.Add(-1) == 0 && a.draining.Load() {
		select {
		case a.idle <- struct{}{}:
		default:
		}
	}
}

// wait waits until no request is in flight.
func (a *activeRequests) wait(ctx context.Context) error {
	for a.n.Load() > 0 {
		select {
		case <-a.idle:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
