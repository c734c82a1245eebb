package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/status"
)

// A request's deadline and its writes meet at a gate, so that a write
// either happens completely or not at all, and the answer says which:
//
//   - before a store write the request passes the gate, which it cannot
//     once the deadline has fired: the write is then not attempted and the
//     client gets 504 Timeout with nothing stored;
//   - a deadline that fires while a store write is under way waits for
//     it: a write that succeeds is answered as usual (the request is then
//     no longer bound by its timeout; its remaining work is encoding the
//     answer), one that fails (a conflict) reopens the gate and the
//     deadline takes effect at once.
//
// The handler's context is cancelled when the deadline takes effect, so
// that reads and waits stop.
const (
	gateOpen      = iota // no write under way, deadline not passed
	gateWriting          // a store write is under way
	gateCommitted        // a store write succeeded
	gateExpired          // the deadline took effect
)

// timeoutMessage is kube-apiserver's message for a request that ran out of
// time.
const timeoutMessage = "Timeout: request did not complete within the allotted timeout"

// deadline is one request's gate.
type deadline struct {
	mu     sync.Mutex
	state  int
	passed bool // the deadline fired while a write was under way
	req    *timedRequest
}

type deadlineKey struct{}

// beginWrite passes the gate before a store write; false: the deadline
// took effect and the write must not happen.
func beginWrite(ctx context.Context) bool {
	d, _ := ctx.Value(deadlineKey{}).(*deadline)
	if d == nil {
		return true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.state {
	case gateExpired:
		return false
	case gateOpen:
		d.state = gateWriting
	}
	return true
}

// endWrite reports the outcome of a store write begun with beginWrite:
// settled is false when the store certainly did not write (a failed
// comparison), which reopens the gate.
func endWrite(ctx context.Context, settled bool) {
	d, _ := ctx.Value(deadlineKey{}).(*deadline)
	if d == nil {
		return
	}
	d.mu.Lock()
	fire := false
	if d.state == gateWriting {
		if settled {
			d.state = gateCommitted
		} else {
			d.state = gateOpen
			fire = d.passed
		}
	}
	d.mu.Unlock()
	if fire {
		d.req.fire()
	}
}

// expire is called when the deadline fires: true when it takes effect,
// false when a write is under way or done.
func (d *deadline) expire() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state != gateOpen {
		d.passed = true
		return false
	}
	d.state = gateExpired
	return true
}

// requestTimeout is how long a request may run: the server's timeout, or
// the client's timeout= when shorter. A malformed timeout= is an error.
func (s *Server) requestTimeout(r *http.Request) (time.Duration, error) {
	timeout := s.opts.RequestTimeout
	if v := query(r).Get("timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return 0, status.BadRequest(fmt.Sprintf("invalid timeout specified in the request URL - %v", err))
		}
		if d > 0 && (d < timeout || timeout <= 0) {
			timeout = d
		}
	}
	return timeout, nil
}

// withTimeout serves a request that must end within timeout. When the
// deadline takes effect before the response has started, the client gets
// 504 Timeout and whatever the handler writes later is dropped; when the
// response has started, the connection is cut (so the client cannot
// mistake a cut-short body for a whole one) and the request is counted as
// aborted. Either way the handler's context is cancelled.
func (s *Server) withTimeout(w http.ResponseWriter, r *http.Request, timeout time.Duration, rec *RequestRecord, next func(http.ResponseWriter, *http.Request)) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	t := &timedRequest{s: s, r: r, cancel: cancel}
	t.tw = timeoutWriter{w: w, h: make(http.Header)}
	t.d.req = t
	tw, d := &t.tw, &t.d
	ctx = context.WithValue(ctx, deadlineKey{}, d)
	timer := time.AfterFunc(timeout, t.expire)
	finished := false
	defer func() {
		// A handler that panicked is answered further up; the timer must
		// not write a 504 into that finished response later.
		if !finished {
			timer.Stop()
			tw.finish()
		}
	}()
	next(tw, r.WithContext(ctx))
	finished = true
	timer.Stop()
	if tw.finish() {
		if rec != nil {
			rec.TimedOut = true
		}
		if tw.aborted {
			panic(http.ErrAbortHandler)
		}
	}
}

// timedRequest is a request under a deadline: its writer, its deadline
// and what the timer needs, in one allocation.
type timedRequest struct {
	tw     timeoutWriter
	d      deadline
	s      *Server
	r      *http.Request
	cancel context.CancelFunc
}

// expire is the timer's: the deadline takes effect unless a write is
// under way (then it does once the write ends, see endWrite).
func (t *timedRequest) expire() {
	if t.d.expire() {
		t.fire()
	}
}

// fire cancels the handler and answers 504, or cuts the response short.
func (t *timedRequest) fire() { t.tw.timeout(t.s, t.r, t.cancel) }

// timeoutWriter passes the handler's response through until the deadline
// takes effect, and nothing after. The handler has its own header map, so
// that the 504 written from the timer's goroutine never races with it.
type timeoutWriter struct {
	w http.ResponseWriter
	h http.Header

	mu       sync.Mutex
	started  bool // the handler's response has started
	timedOut bool
	aborted  bool // timed out after the response started
	done     bool // the handler returned
}

func (tw *timeoutWriter) Header() http.Header { return tw.h }

func (tw *timeoutWriter) WriteHeader(code int) {
	if tw.start() {
		tw.w.WriteHeader(code)
	}
}

func (tw *timeoutWriter) Write(b []byte) (int, error) {
	tw.mu.Lock()
	timedOut, started := tw.timedOut, tw.started
	tw.mu.Unlock()
	switch {
	case timedOut:
		return 0, http.ErrHandlerTimeout
	case !started:
		if !tw.start() {
			return 0, http.ErrHandlerTimeout
		}
		tw.w.WriteHeader(http.StatusOK)
	}
	return tw.w.Write(b)
}

// start marks the response started and hands the handler's headers on;
// false when it had started already or the request timed out. Once
// started, the timer's goroutine writes nothing to the response.
func (tw *timeoutWriter) start() bool {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if tw.timedOut || tw.started {
		return false
	}
	tw.started = true
	dst := tw.w.Header()
	for k, v := range tw.h {
		dst[k] = v
	}
	return true
}

// Flush sends what the handler wrote so far.
func (tw *timeoutWriter) Flush() {
	tw.mu.Lock()
	ok := tw.started && !tw.timedOut
	tw.mu.Unlock()
	if ok {
		_ = http.NewResponseController(tw.w).Flush()
	}
}

// timeout runs when the deadline takes effect: it cancels the handler
// and answers 504, or cuts the response short if it has started.
func (tw *timeoutWriter) timeout(s *Server, r *http.Request, cancel context.CancelFunc) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	cancel()
	if tw.done {
		return
	}
	// Unblock a handler reading a body that trickles in.
	_ = http.NewResponseController(tw.w).SetReadDeadline(time.Now())
	tw.timedOut = true
	if tw.started {
		tw.aborted = true
		// Unblock a write to a peer that reads nothing.
		_ = http.NewResponseController(tw.w).SetWriteDeadline(time.Now())
		return
	}
	// The handler may still be running on this connection: a client must
	// not send its next request on it (HTTP/1.1; HTTP/2 streams do not
	// wait for each other).
	tw.w.Header().Set("Connection", "close")
	s.writeError(tw.w, r, status.Timeout(timeoutMessage, 0))
	_ = http.NewResponseController(tw.w).Flush()
}

// finish marks the handler done and reports whether the request timed
// out.
func (tw *timeoutWriter) finish() bool {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.done = true
	return tw.timedOut
}
