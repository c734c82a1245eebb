package apiserver

import (
	"context"
	"net/http"
	"time"
)

type recordKey struct{}

// recordFrom returns the request's record; nil when the server has
// neither observer nor tracer.
func recordFrom(ctx context.Context) *RequestRecord {
	rec, _ := ctx.Value(recordKey{}).(*RequestRecord)
	return rec
}

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
	ctx := r.Context()
	var span Span
	if s.tracer != nil {
		ctx, span = s.tracer.StartRequest(r, spanName(rec))
		if span != nil {
			if u := flowOf(r); u != anonymousFlow {
				span.SetAttribute("user.name", u)
			}
		}
	}
	r = r.WithContext(context.WithValue(ctx, recordKey{}, rec))
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
	s.serveHTTP(mw, r)
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
