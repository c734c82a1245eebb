package watch

import (
	"context"
	"sync"
)

// sharedCall shares one request to the store (its current revision, or a
// progress request) between the consistent reads that need it at the
// same time, so that N concurrent reads cost one round trip, not N.
//
// A read may only share a request that had not been sent when the read
// arrived: the store's answer must be at least as new as the read, or
// the read could miss a write acknowledged before it began. So at most
// one request is in flight, and the reads that arrive meanwhile queue for
// the next one, which is sent as soon as the one in flight returns and
// answers all of them. Under load a read waits for at most one round
// trip before its own, and the store sees one request at a time.
type sharedCall struct {
	// do is the request; ctx is the cache's, canceled by Stop, so that a
	// reader that gives up does not fail the others sharing its request.
	do  func(ctx context.Context) (int64, error)
	ctx context.Context

	mu   sync.Mutex
	busy bool         // a request is in flight
	next *pendingCall // the readers waiting for the one in flight to return
}

// pendingCall is a request queued behind the one in flight and, once
// done is closed, its answer.
type pendingCall struct {
	done chan struct{}
	rev  int64
	err  error
}

func newSharedCall(ctx context.Context, do func(context.Context) (int64, error)) *sharedCall {
	return &sharedCall{ctx: ctx, do: do}
}

// call returns the answer of a request sent after call was called,
// shared with every other caller waiting for the same one. It gives up
// when ctx is done; the request goes on for the others.
func (s *sharedCall) call(ctx context.Context) (int64, error) {
	s.mu.Lock()
	if !s.busy { // nothing in flight: send at once, on this goroutine
		s.busy = true
		s.mu.Unlock()
		rev, err := s.do(s.ctx)
		s.returned()
		return rev, err
	}
	p := s.next
	if p == nil {
		p = &pendingCall{done: make(chan struct{})}
		s.next = p
	}
	s.mu.Unlock()
	select {
	case <-p.done:
		return p.rev, p.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// returned ends the request in flight and sends the one queued meanwhile,
// if any, on a goroutine of its own so that the caller can go on.
func (s *sharedCall) returned() {
	s.mu.Lock()
	p := s.next
	s.next, s.busy = nil, p != nil
	s.mu.Unlock()
	if p != nil {
		go s.send(p)
	}
}

// send makes the queued request p and answers its readers.
func (s *sharedCall) send(p *pendingCall) {
	p.rev, p.err = s.do(s.ctx)
	close(p.done)
	s.returned()
}
