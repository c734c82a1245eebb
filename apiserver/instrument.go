package apiserver

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// observed is what serveObserved keeps of a request, in one allocation.
type observed struct {
	rec RequestRecord
	mw  meteredWriter
}

// serveObserved serves a request with an observer or a tracer: it opens
// the request's span (continuing the client's trace), and reports the
// request's labels and outcome when it ends, panics included.
func (s *Server) serveObserved(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	class := classify(r)
	o := &observed{rec: RequestRecord{RequestLabels: labelsFor(r, class)}}
	o.mw = meteredWriter{ResponseWriter: w, code: http.StatusOK}
	rec, mw := &o.rec, &o.mw
	var span Span
	if s.tracer != nil {
		var ctx context.Context
		ctx, span = s.tracer.StartRequest(r, s.spanNames.get(rec))
		if span != nil {
			if u := flowOf(r); u != anonymousFlow {
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
		rec.Code, rec.ResponseSize, rec.Duration = mw.code, mw.size, time.Since(start)
		if s.observer != nil && !class.probe {
			s.observer.ObserveRequest(rec)
		}
		if span != nil {
			span.SetStatusCode(rec.Code)
			span.End(nil)
		}
		if p != nil {
			panic(p)
		}
	}()
	s.serveHTTP(mw, r, rec)
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
// allocation.
type spanNames struct {
	mu sync.RWMutex
	m  map[spanNameKey]string
}

// get returns spanName(rec), kept for the next request with its labels.
func (c *spanNames) get(rec *RequestRecord) string {
	k := spanNameKey{rec.Verb, rec.Resource, rec.Subresource}
	c.mu.RLock()
	name, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return name
	}
	name = spanName(rec)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[spanNameKey]string)
	}
	if len(c.m) < maxSpanNames {
		c.m[k] = name
	}
	return name
}

// meteredWriter counts the status code and body bytes of a response.
type meteredWriter struct {
	http.ResponseWriter
	code  int
	size  int64
	wrote bool
}

func (m *meteredWriter) WriteHeader(code int) {
	if !m.wrote {
		m.code, m.wrote = code, true
	}
	m.ResponseWriter.WriteHeader(code)
}

func (m *meteredWriter) Write(b []byte) (int, error) {
	m.wrote = true
	n, err := m.ResponseWriter.Write(b)
	m.size += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach Flush and deadlines.
func (m *meteredWriter) Unwrap() http.ResponseWriter { return m.ResponseWriter }
