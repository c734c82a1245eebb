package apiserver

import (
	"context"
	"sync/atomic"
	"time"
)

// Shutdown stops the server gracefully, in kube-apiserver's order:
//
//  1. /readyz fails (its "shutdown" check), so that load balancers stop
//     sending new requests, while every request is still served for
//     Options.ShutdownDelayDuration;
//  2. new requests get 503 ServiceUnavailable with Retry-After, which
//     clients such as client-go retry (elsewhere, behind a load balancer);
//  3. open watches end cleanly (the stream ends after the events already
//     sent, and clients watch again from their last resourceVersion);
//  4. requests in flight finish, writes included;
//  5. the watch caches stop ([Server.Close]).
//
// Health checks are answered throughout. Shutdown returns ctx's error if
// ctx ends first; the watch caches are stopped anyway. The host then
// shuts its http.Server down. Shutdown is meant to be called once.
func (s *Server) Shutdown(ctx context.Context) error {
	s.shuttingDown.Store(true)
	defer s.Close()
	if d := s.opts.ShutdownDelayDuration; d > 0 {
		t := time.NewTimer(d)
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
