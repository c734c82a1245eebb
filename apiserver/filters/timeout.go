package filters

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/apiserver/observe"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/status"
)

// A request's deadline and its writes meet at a gate, so that the answer
// to a write that ran out of time never claims more than the server
// knows:
//
//   - before a store write the request passes the gate, which it cannot
//     once the deadline has fired: the write is then not attempted and the
//     client gets 504 Timeout with nothing stored;
//   - a deadline that fires while a store write is under way takes effect
//     at once, as kube-apiserver's does: the client gets 504 Timeout,
//     which tells it that the write may still happen (a store that hangs
//     may apply it later), and the store call is cancelled;
//   - once a store write has succeeded the deadline no longer applies:
//     the request's remaining work is encoding the answer, and a write
//     known to be done is answered as one.
//
// The handler's context is cancelled when the deadline takes effect, so
// that reads, waits and the store call stop.
const (
	gateOpen      = iota // no write under way, deadline not passed
	gateWriting          // a store write is under way
	gateCommitted        // a store write succeeded
	gateExpired          // the deadline took effect
)

// TimeoutMessage is kube-apiserver's message for a request that ran out
// of the time its timeout filter allows (the server's request timeout or
// the client's timeout=).
const TimeoutMessage = "Timeout: request did not complete within the allotted timeout"

// WriteTimeoutMessage is kube-apiserver's message for a write that ran
// out of the time its handler allows (MaxWriteTimeout): the one a client
// gets when etcd hangs.
const WriteTimeoutMessage = "Timeout: request did not complete within requested timeout - context deadline exceeded"

// MaxWriteTimeout bounds a create, update, patch or delete of one object
// whose request timeout is longer, as kube-apiserver's handlers bound
// theirs (34 s, under its default request timeout of 60 s).
const MaxWriteTimeout = 34 * time.Second

// deadline is one request's gate.
type deadline struct {
	mu    sync.Mutex
	state int
	// msg is the message of the 504; empty: TimeoutMessage.
	msg string
	req *timedRequest
}

type deadlineKey struct{}

// BeginWrite passes the gate before a store write; false: the deadline
// took effect and the write must not happen.
func BeginWrite(ctx context.Context) bool {
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

// EndWrite reports the outcome of a store write begun with BeginWrite:
// settled is false when the store certainly did not write (a failed
// comparison), which reopens the gate.
func EndWrite(ctx context.Context, settled bool) {
	d, _ := ctx.Value(deadlineKey{}).(*deadline)
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state == gateWriting {
		if settled {
			d.state = gateCommitted
		} else {
			d.state = gateOpen
		}
	}
}

// expire is called when the deadline fires: it reports whether the
// deadline takes effect (not once a write succeeded), and the message of
// the 504.
func (d *deadline) expire() (bool, string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state == gateCommitted {
		return false, ""
	}
	d.state = gateExpired
	if d.msg == "" {
		return true, TimeoutMessage
	}
	return true, d.msg
}

// BoundWrite brings the deadline of a write of one object forward to
// limit (MaxWriteTimeout) from now, when its request may run longer, with
// kube-apiserver's message for it.
func BoundWrite(ctx context.Context, limit time.Duration) {
	if d, _ := ctx.Value(deadlineKey{}).(*deadline); d != nil {
		d.req.bound(limit)
	}
}

// RequestTimeout is how long a request may run: the server's timeout,
// limit, or the client's timeout= when shorter. A malformed timeout= is
// an error.
func RequestTimeout(r *http.Request, limit time.Duration) (time.Duration, error) {
	timeout := limit
	if v := requestinfo.Query(r).Get("timeout"); v != "" {
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

// WithTimeout serves a request that must end within timeout. When the
// deadline takes effect before the response has started, the client gets
// 504 Timeout and whatever the handler writes later is dropped; when the
// response has started, the connection is cut (so the client cannot
// mistake a cut-short body for a whole one) and the request is counted as
// aborted. Either way the handler's context is cancelled.
// writeError answers the 504; rec, when not nil, records the timeout.
func WithTimeout(w http.ResponseWriter, r *http.Request, timeout time.Duration, rec *observe.RequestRecord, writeError ErrorWriter, next func(http.ResponseWriter, *http.Request)) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	t := &timedRequest{writeError: writeError, r: r, cancel: cancel, at: time.Now().Add(timeout)}
	t.tw = timeoutWriter{w: w, h: make(http.Header)}
	t.d.req = t
	tw, d := &t.tw, &t.d
	ctx = context.WithValue(ctx, deadlineKey{}, d)
	timer := time.AfterFunc(timeout, t.expire)
	t.timer = timer
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
	tw         timeoutWriter
	d          deadline
	writeError ErrorWriter
	r          *http.Request
	cancel     context.CancelFunc
	// timer fires at at; both change only under d.mu (see bound).
	timer *time.Timer
	at    time.Time
}

// expire is the timer's: the deadline takes effect unless a write has
// succeeded; it cancels the handler and answers 504, or cuts the
// response short.
func (t *timedRequest) expire() {
	if ok, msg := t.d.expire(); ok {
		t.tw.timeout(t.writeError, t.r, t.cancel, msg)
	}
}

// bound brings the deadline forward to limit from now, if that is
// sooner, and gives it WriteTimeoutMessage. A timer that has fired
// already is left alone.
func (t *timedRequest) bound(limit time.Duration) {
	at := time.Now().Add(limit)
	t.d.mu.Lock()
	defer t.d.mu.Unlock()
	if !at.Before(t.at) || t.d.state != gateOpen || !t.timer.Stop() {
		return
	}
	t.at, t.d.msg = at, WriteTimeoutMessage
	t.timer.Reset(limit)
}

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
// and answers 504 with msg, or cuts the response short if it has
// started.
func (tw *timeoutWriter) timeout(writeError ErrorWriter, r *http.Request, cancel context.CancelFunc, msg string) {
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
	// not send its next request on it over HTTP/1.1. HTTP/2 streams do
	// not wait for each other, and there the header would make net/http
	// send GOAWAY: every other request and watch on the connection (a
	// client-go's all) would have to move to a new one.
	if r.ProtoMajor == 1 {
		tw.w.Header().Set("Connection", "close")
	}
	writeError(tw.w, r, status.Timeout(msg, 0))
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
