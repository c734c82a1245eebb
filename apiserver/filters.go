package apiserver

import (
	"context"
	"time"

	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/health"
)

// The defaults of the operational options.
const (
	// DefaultRequestTimeout is kube-apiserver's --request-timeout.
	DefaultRequestTimeout = 60 * time.Second
	// DefaultInFlightQueueLength is how many requests one user may have
	// waiting for a seat, as kube-apiserver's priority levels queue 50.
	DefaultInFlightQueueLength = 50
)

// operations is the server's state for staying up under load: in-flight
// limits, health checks, shutdown, and the observer and tracer.
type operations struct {
	limits   filters.Limits
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
	s.Observer, s.Tracer = o.Observer, o.Tracer
	var observe func(string, int)
	if s.Observer != nil {
		observe = s.Observer.ObserveInflight
		s.Observer.ObserveResources(s.kinds.resourceStats)
	}
	if o.MaxRequestsInFlight > 0 {
		s.limits.ReadOnly = filters.NewFairLimiter("readOnly", o.MaxRequestsInFlight, o.InFlightQueueLength, o.InFlightQueueTimeout, observe)
	}
	if o.MaxMutatingRequestsInFlight > 0 {
		s.limits.Mutating = filters.NewFairLimiter("mutating", o.MaxMutatingRequestsInFlight, o.InFlightQueueLength, o.InFlightQueueTimeout, observe)
	}
	if s.Tracer != nil {
		o.MutatingAdmission = s.traceAdmission("admission.mutating", o.MutatingAdmission)
		o.ValidatingAdmission = s.traceAdmission("admission.validating", o.ValidatingAdmission)
	}
	s.shutdown = health.NewShutdown()
	s.health = health.NewHandler(s.healthChecks())
	s.limits.Shutdown, s.limits.RequestTimeout = s.shutdown, o.RequestTimeout
	if s.Observer != nil {
		s.limits.LongRunning = s.observeLongRunning
	}
}

// observeLongRunning counts an open long-running request (and, for a
// registered kind, its watcher) for the observer, until the returned
// function is called.
func (s *server) observeLongRunning(rec *RequestRecord) (done func()) {
	o := s.Observer
	s.boundLabels(&rec.RequestLabels)
	o.ObserveLongRunning(&rec.RequestLabels, 1)
	kind := s.kinds.kindOf(&rec.RequestLabels)
	if kind != "" {
		o.ObserveWatchers(rec.Group, rec.Version, kind, 1)
	}
	return func() {
		if kind != "" {
			o.ObserveWatchers(rec.Group, rec.Version, kind, -1)
		}
		o.ObserveLongRunning(&rec.RequestLabels, -1)
	}
}

// kindOf names the kind of a registered resource, "" for others.
func (s *catalog) kindOf(l *RequestLabels) string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if h := s.lookup(l.Group, l.Version, l.Resource); h != nil {
		return h.Resource.Kind.Kind
	}
	return ""
}

// resourceStats reads every registered resource's watch cache, for the
// observer.
func (s *catalog) resourceStats() []ResourceStats {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]ResourceStats, 0, len(s.resources))
	for _, r := range s.sortedResources() {
		st := r.Cache.Stats()
		rs := ResourceStats{Group: r.Kind.Group, Version: r.Kind.Version, Resource: r.Kind.Resource,
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
			ctx, end := s.StartSpan(ctx, name)
			err := f(ctx, req)
			end(err)
			return err
		}
	}
	return out
}
