package apiserver

import (
	"context"
	"net/http"
	"time"

	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/health"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// The defaults of the operational options.
const (
	// DefaultRequestTimeout is kube-apiserver's --request-timeout.
	DefaultRequestTimeout = 60 * time.Second
	// DefaultInFlightQueueLength is how many requests one user may have
	// waiting for a seat, as kube-apiserver's priority levels queue 50.
	DefaultInFlightQueueLength = 50
)

// anonymousFlow is the in-flight queue of requests that carry no user.
const anonymousFlow = "system:anonymous"

// exemptGroup is kube-apiserver's system:masters: its members are never
// queued nor rejected by the in-flight limits, as kube-apiserver's
// --max-requests-inflight filter lets them through (a super-user must be
// able to repair a saturated server).
const exemptGroup = "system:masters"

// operations is the server's state for staying up under load: in-flight
// limits, health checks, shutdown, and the observer and tracer.
type operations struct {
	readOnly *filters.FairLimiter // nil: no limit
	mutating *filters.FairLimiter

	health   *health.Handler
	shutdown *health.Shutdown
}

// initOperations applies the operational options' defaults and builds the
// limiters and health checks; New calls it.
func (s *server) initOperations() {
	o := &s.opts
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.InFlightQueueLength <= 0 {
		o.InFlightQueueLength = DefaultInFlightQueueLength
	}
	if o.InFlightQueueTimeout <= 0 {
		o.InFlightQueueTimeout = max(o.RequestTimeout/4, time.Second)
	}
	s.observer, s.tracer = o.Observer, o.Tracer
	var observe func(string, int)
	if s.observer != nil {
		observe = s.observer.ObserveInflight
		s.observer.ObserveResources(s.resourceStats)
	}
	if o.MaxRequestsInFlight > 0 {
		s.readOnly = filters.NewFairLimiter("readOnly", o.MaxRequestsInFlight, o.InFlightQueueLength, o.InFlightQueueTimeout, observe)
	}
	if o.MaxMutatingRequestsInFlight > 0 {
		s.mutating = filters.NewFairLimiter("mutating", o.MaxMutatingRequestsInFlight, o.InFlightQueueLength, o.InFlightQueueTimeout, observe)
	}
	if s.tracer != nil {
		o.MutatingAdmission = s.traceAdmission("admission.mutating", o.MutatingAdmission)
		o.ValidatingAdmission = s.traceAdmission("admission.validating", o.ValidatingAdmission)
	}
	s.shutdown = health.NewShutdown()
	s.health = health.NewHandler(s.healthChecks())
}

// protect runs the filters between authentication and serving:
// shutdown (503), the in-flight limits (429) and the request timeout
// (504). Health checks go straight through: they must answer while the
// server is saturated or shutting down. rec, when not nil, is the
// request's record for the observer: the filters note why they refused.
func (s *server) protect(w http.ResponseWriter, r *http.Request, class requestinfo.Class, rec *RequestRecord, serve http.HandlerFunc) {
	if class.Probe {
		serve(w, r)
		return
	}
	if !s.shutdown.Enter() {
		// As kube-apiserver does, the client is told to drop the
		// connection, so that it retries on a new one (elsewhere, behind
		// a load balancer) rather than on one the server is closing.
		w.Header().Set("Connection", "close")
		e := status.ServiceUnavailable("The apiserver is shutting down, please try again later.")
		e.Status.Details = &meta.StatusDetails{RetryAfterSeconds: 1}
		s.writeError(w, r, e)
		return
	}
	defer s.shutdown.Leave()
	if class.LongRunning {
		s.serveLongRunning(w, r, rec, serve)
		return
	}
	if lim := s.limiter(class); lim != nil && !exempt(r) {
		if rec != nil {
			rec.RequestKind = lim.Kind()
		}
		if reason := lim.Acquire(r.Context(), flowOf(r)); reason != "" {
			if rec != nil {
				rec.Rejected = reason
			}
			s.writeError(w, r, status.TooManyRequests("", 1))
			return
		}
		defer lim.Release()
	}
	timeout, err := filters.RequestTimeout(r, s.opts.RequestTimeout)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if timeout <= 0 {
		serve(w, r)
		return
	}
	filters.WithTimeout(w, r, timeout, rec, s.guard.WriteError, serve)
}

func (s *server) limiter(c requestinfo.Class) *filters.FairLimiter {
	if c.Mutating {
		return s.mutating
	}
	return s.readOnly
}

// flowOf names the in-flight queue of a request: its user's name, or the
// shared anonymous queue.
func flowOf(r *http.Request) string {
	if u, ok := auth.UserFrom(r.Context()); ok && u.Name != "" {
		return u.Name
	}
	return anonymousFlow
}

func exempt(r *http.Request) bool {
	u, ok := auth.UserFrom(r.Context())
	return ok && u.InGroup(exemptGroup)
}

// serveLongRunning serves a watch: no limit, no timeout but its own, and
// an end when the server shuts down.
func (s *server) serveLongRunning(w http.ResponseWriter, r *http.Request, rec *RequestRecord, serve http.HandlerFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.shutdown.LongRunning(), cancel)
	defer stop()
	if o := s.observer; o != nil {
		s.boundLabels(&rec.RequestLabels)
		o.ObserveLongRunning(&rec.RequestLabels, 1)
		defer o.ObserveLongRunning(&rec.RequestLabels, -1)
		if kind := s.kindOf(&rec.RequestLabels); kind != "" {
			o.ObserveWatchers(rec.Group, rec.Version, kind, 1)
			defer o.ObserveWatchers(rec.Group, rec.Version, kind, -1)
		}
	}
	serve(w, r.WithContext(ctx))
}

// kindOf names the kind of a registered resource, "" for others.
func (s *server) kindOf(l *RequestLabels) string {
	s.kinds.mu.RLock()
	defer s.kinds.mu.RUnlock()
	if h := s.kinds.lookup(l.Group, l.Version, l.Resource); h != nil {
		return h.r.kind.Kind
	}
	return ""
}

// resourceStats reads every registered resource's watch cache, for the
// observer.
func (s *server) resourceStats() []ResourceStats {
	s.kinds.mu.RLock()
	defer s.kinds.mu.RUnlock()
	out := make([]ResourceStats, 0, len(s.kinds.resources))
	for _, r := range s.kinds.sortedResources() {
		st := r.cache.Stats()
		rs := ResourceStats{Group: r.kind.Group, Version: r.kind.Version, Resource: r.kind.Resource,
			Objects: st.Objects, WindowEvents: st.WindowEvents, Revision: st.Revision}
		if !st.Ready {
			rs.Objects = -1
		}
		out = append(out, rs)
	}
	return out
}

// traceAdmission wraps each admission function in a span.
func (s *server) traceAdmission(name string, funcs []AdmissionFunc) []AdmissionFunc {
	out := make([]AdmissionFunc, len(funcs))
	for i, f := range funcs {
		out[i] = func(ctx context.Context, req *AdmissionRequest) error {
			ctx, end := s.startSpan(ctx, name)
			err := f(ctx, req)
			end(err)
			return err
		}
	}
	return out
}
