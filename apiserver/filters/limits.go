package filters

import (
	"context"
	"net/http"
	"time"

	"github.com/kapi-dev/kapi/apiserver/health"
	"github.com/kapi-dev/kapi/apiserver/observe"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// AnonymousFlow is the in-flight queue of requests that carry no user.
const AnonymousFlow = "system:anonymous"

// exemptGroup is kube-apiserver's system:masters: its members are never
// queued nor rejected by the in-flight limits, as kube-apiserver's
// --max-requests-inflight filter lets them through (a super-user must be
// able to repair a saturated server).
const exemptGroup = "system:masters"

// Limits are the filters between the guard and serving: shutdown (503),
// the in-flight limits (429) and the request's deadline (504).
type Limits struct {
	// Shutdown turns requests away once the server drains.
	Shutdown *health.Shutdown
	// ReadOnly and Mutating bound the requests served at once; nil: no
	// limit.
	ReadOnly, Mutating *FairLimiter
	// RequestTimeout is the server's deadline; 0 or less: none.
	RequestTimeout time.Duration
	// WriteError answers the requests the limits refuse.
	WriteError ErrorWriter
	// LongRunning, when not nil, hears of each long-running request as it
	// starts; the function it returns is called as it ends.
	LongRunning func(rec *observe.RequestRecord) (done func())
}

// Serve runs the limits on a request, then serve. Health checks go
// straight through: they must answer while the server is saturated or
// shutting down. rec, when not nil, is the request's record for the
// observer: the filters note why they refused.
func (s *Limits) Serve(w http.ResponseWriter, r *http.Request, class requestinfo.Class, rec *observe.RequestRecord, serve http.HandlerFunc) {
	if class.Probe {
		serve(w, r)
		return
	}
	if !s.Shutdown.Enter() {
		// As kube-apiserver does, the client is told to drop the
		// connection, so that it retries on a new one (elsewhere, behind
		// a load balancer) rather than on one the server is closing.
		w.Header().Set("Connection", "close")
		e := status.ServiceUnavailable("The apiserver is shutting down, please try again later.")
		e.Status.Details = &meta.StatusDetails{RetryAfterSeconds: 1}
		s.WriteError(w, r, e)
		return
	}
	defer s.Shutdown.Leave()
	if class.LongRunning {
		s.serveLongRunning(w, r, rec, serve)
		return
	}
	if lim := s.limiter(class); lim != nil && !exempt(r) {
		if rec != nil {
			rec.RequestKind = lim.Kind()
		}
		if reason := lim.Acquire(r.Context(), FlowOf(r)); reason != "" {
			if rec != nil {
				rec.Rejected = reason
			}
			s.WriteError(w, r, status.TooManyRequests("", 1))
			return
		}
		defer lim.Release()
	}
	timeout, err := RequestTimeout(r, s.RequestTimeout)
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	if timeout <= 0 {
		serve(w, r)
		return
	}
	WithTimeout(w, r, timeout, rec, s.WriteError, serve)
}

func (s *Limits) limiter(c requestinfo.Class) *FairLimiter {
	if c.Mutating {
		return s.Mutating
	}
	return s.ReadOnly
}

// FlowOf names the in-flight queue of a request: its user's name, or the
// shared anonymous queue.
func FlowOf(r *http.Request) string {
	if u, ok := auth.UserFrom(r.Context()); ok && u.Name != "" {
		return u.Name
	}
	return AnonymousFlow
}

func exempt(r *http.Request) bool {
	u, ok := auth.UserFrom(r.Context())
	return ok && u.InGroup(exemptGroup)
}

// serveLongRunning serves a watch: no limit, no timeout but its own, and
// an end when the server shuts down.
func (s *Limits) serveLongRunning(w http.ResponseWriter, r *http.Request, rec *observe.RequestRecord, serve http.HandlerFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.Shutdown.LongRunning(), cancel)
	defer stop()
	if s.LongRunning != nil {
		defer s.LongRunning(rec)()
	}
	serve(w, r.WithContext(ctx))
}
