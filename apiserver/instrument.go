package apiserver

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
)

// served is what serving a request keeps of it, pooled: the writer that
// records its status and size, what is worked out once for the filters,
// routing and the metric labels (the request's class and parsed path),
// and its record for the observer, which may not keep it past its call
// (see Observer).
type served struct {
	rec RequestRecord
	// sr is the writer serveHTTP records the response's status and size
	// with.
	sr    filters.StatusRecorder
	class requestinfo.Class
	path  requestinfo.Path
}

// serveObserved serves a request with an observer or a tracer: it opens
// the request's span (continuing the client's trace), and reports the
// request's labels and outcome when it ends, panics included.
func (s *server) serveObserved(w http.ResponseWriter, r *http.Request) {
	// Durations from the server's clock base: one read of the monotonic
	// clock at each end, where time.Now would read the wall clock too.
	start := time.Since(s.clockBase)
	o := s.startServing(w, r)
	o.rec.RequestLabels = requestinfo.Labels(r, o.class, &o.path)
	rec, sr, class := &o.rec, &o.sr, o.class
	var span Span
	if s.tracer != nil {
		var ctx context.Context
		ctx, span = s.tracer.StartRequest(r, s.spanNames.get(rec))
		if span != nil {
			if u := filters.FlowOf(r); u != filters.AnonymousFlow {
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
			if !o.path.Resolved {
				s.boundLabels(&rec.RequestLabels)
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
	s.serveHTTP(r, o)
}

// startServing returns the pooled state of a request beginning, w its
// writer; doneServing gives it back.
func (s *server) startServing(w http.ResponseWriter, r *http.Request) *served {
	o, _ := s.records.Get().(*served)
	if o == nil {
		o = new(served)
	}
	o.sr = filters.StatusRecorder{ResponseWriter: w, Code: http.StatusOK}
	o.class = requestinfo.Classify(r)
	o.path.Parse(r)
	return o
}

func (s *server) doneServing(o *served) {
	*o = served{}
	s.records.Put(o)
}

// boundLabels blanks the resource labels of a request whose group,
// version, resource or subresource the server does not serve. The labels
// come from the request's path, so a client could otherwise make any
// number of series (kube-apiserver's request metrics count routed
// requests only, and its terminations have this very problem).
func (s *server) boundLabels(l *RequestLabels) {
	if l.Resource == "" {
		return
	}
	if h := s.kinds.seal().lookup(l.Group, l.Version, l.Resource); h != nil && (l.Subresource == "" || h.r.hasSubresource(l.Subresource)) {
		return
	}
	l.Group, l.Version, l.Resource, l.Subresource = "", "", "", ""
}

// spanName names a request's span by its verb and resource ("LIST
// widgets"), or its method outside the API.
func spanName(rec *RequestRecord) string {
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
func (c *spanNames) get(rec *RequestRecord) string {
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
