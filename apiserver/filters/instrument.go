package filters

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kapi-dev/kapi/apiserver/observe"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
)

// Served is what serving a request keeps of it, pooled: the writer that
// records its status and size, what is worked out once for the filters,
// routing and the metric labels (the request's class and parsed path),
// and its record for the observer, which may not keep it past its call
// (see observe.Observer). It is passed down rather than put in the
// request's context, which would cost a copy of the request per request.
type Served struct {
	Record observe.RequestRecord
	// Writer is the writer the request is answered through, which
	// records the response's status and size.
	Writer StatusRecorder
	Class  requestinfo.Class
	Path   requestinfo.Path
}

// Instrument is the outermost filter: it reads what a request is once
// (package requestinfo), keeps it with the response's writer in a pooled
// Served for the filters and the router, and, with an observer or a
// tracer, opens the request's span and reports its labels and outcome.
type Instrument struct {
	observer observe.Observer
	tracer   observe.Tracer
	// next serves the request, writing to its Served's Writer.
	next func(*http.Request, *Served)
	// bound blanks the resource labels of a request that named no served
	// resource.
	bound func(*observe.RequestLabels)
	// clockBase is when the instrument was made, with its monotonic
	// reading: request durations are measured from it.
	clockBase time.Time
	// records holds the Served of finished requests, for the next.
	records   sync.Pool
	spanNames spanNames // of the tracer's request spans
}

// NewInstrument returns the filter serving requests with next, reporting
// to observer and tracer (either may be nil); bound blanks the resource
// labels of a request that did not name a served resource (see
// requestinfo.Labels), so that clients cannot make series without bound.
func NewInstrument(observer observe.Observer, tracer observe.Tracer, bound func(*observe.RequestLabels), next func(*http.Request, *Served)) *Instrument {
	return &Instrument{observer: observer, tracer: tracer, bound: bound, next: next, clockBase: time.Now()}
}

// Serve serves a request.
func (s *Instrument) Serve(w http.ResponseWriter, r *http.Request) {
	if s.observer != nil || s.tracer != nil {
		s.serveObserved(w, r)
		return
	}
	o := s.startServing(w, r)
	s.next(r, o)
	// Not deferred: after a panic, o is left to the collector.
	s.doneServing(o)
}

// serveObserved serves a request with an observer or a tracer: it opens
// the request's span (continuing the client's trace), and reports the
// request's labels and outcome when it ends, panics included.
func (s *Instrument) serveObserved(w http.ResponseWriter, r *http.Request) {
	// Durations from the server's clock base: one read of the monotonic
	// clock at each end, where time.Now would read the wall clock too.
	start := time.Since(s.clockBase)
	o := s.startServing(w, r)
	o.Record.RequestLabels = requestinfo.Labels(r, o.Class, &o.Path)
	rec, sr, class := &o.Record, &o.Writer, o.Class
	var span observe.Span
	if s.tracer != nil {
		var ctx context.Context
		ctx, span = s.tracer.StartRequest(r, s.spanNames.get(rec))
		if span != nil {
			if u := FlowOf(r); u != AnonymousFlow {
				span.SetAttribute("user.name", u)
			}
			r = r.WithContext(ctx)
		}
	}
	defer func() {
		p := recover()
		if p == http.ErrAbortHandler {
			rec.Aborted = true
		}
		rec.Code, rec.ResponseSize, rec.Duration = sr.Code, sr.Size, time.Since(s.clockBase)-start
		if s.observer != nil && !class.Probe {
			if !o.Path.Resolved {
				s.bound(&rec.RequestLabels)
			}
			s.observer.ObserveRequest(rec)
		}
		if span != nil {
			span.SetStatusCode(rec.Code)
			span.End(nil)
		}
		if p != nil {
			panic(p)
		}
		s.doneServing(o)
	}()
	s.next(r, o)
}

// startServing returns the pooled state of a request beginning, w its
// writer; doneServing gives it back.
func (s *Instrument) startServing(w http.ResponseWriter, r *http.Request) *Served {
	o, _ := s.records.Get().(*Served)
	if o == nil {
		o = new(Served)
	}
	o.Writer = StatusRecorder{ResponseWriter: w, Code: http.StatusOK}
	o.Class = requestinfo.Classify(r)
	o.Path.Parse(r)
	return o
}

func (s *Instrument) doneServing(o *Served) {
	*o = Served{}
	s.records.Put(o)
}

// spanName names a request's span by its verb and resource ("LIST
// widgets"), or its method outside the API.
func spanName(rec *observe.RequestRecord) string {
	if rec.Resource == "" {
		return rec.Verb
	}
	if rec.Subresource != "" {
		return rec.Verb + " " + rec.Resource + "/" + rec.Subresource
	}
	return rec.Verb + " " + rec.Resource
}

// spanNameKey is what a request's span name is made of.
type spanNameKey struct{ verb, resource, subresource string }

// maxSpanNames bounds the span names a server keeps: the labels come from
// the request's path, so a client can make many.
const maxSpanNames = 1024

// spanNames keeps the span names made so far, so that naming the span of
// a request (sampled or not) costs a map lookup rather than an
// allocation. The map is replaced whole when a name is added, so that
// the lookup takes no lock: a read lock's shared counter costs more on
// many cores than the lookup.
type spanNames struct {
	names atomic.Pointer[map[spanNameKey]string]
	mu    sync.Mutex // held to add a name
}

// get returns spanName(rec), kept for the next request with its labels.
func (c *spanNames) get(rec *observe.RequestRecord) string {
	k := spanNameKey{rec.Verb, rec.Resource, rec.Subresource}
	if m := c.names.Load(); m != nil {
		if name, ok := (*m)[k]; ok {
			return name
		}
	}
	name := spanName(rec)
	c.mu.Lock()
	defer c.mu.Unlock()
	var cur map[spanNameKey]string
	if m := c.names.Load(); m != nil {
		cur = *m
	}
	if len(cur) < maxSpanNames {
		next := make(map[spanNameKey]string, len(cur)+1)
		for k, v := range cur {
			next[k] = v
		}
		next[k] = name
		c.names.Store(&next)
	}
	return name
}
