package apiclient

import (
	"io"
	"net/http"
	"sync"
)

// handlerTransport is an http.RoundTripper that serves each request by
// calling a handler in the process: the request takes the path a remote
// client's would (routing, admission, the watch cache) without a socket.
// The response streams, so watches work.
type handlerTransport struct {
	h http.Handler
}

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, body: pw, ready: make(chan struct{})}
	resp := &http.Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Request: req, Body: pr}
	go func() {
		defer func() {
			w.writeHeader(http.StatusOK)
			_ = pw.Close()
		}()
		t.h.ServeHTTP(w, req)
	}()
	select {
	case <-w.ready:
	case <-req.Context().Done():
		_ = pr.CloseWithError(req.Context().Err())
		return nil, req.Context().Err()
	}
	resp.StatusCode = w.code
	resp.Status = http.StatusText(w.code)
	resp.Header = w.sent
	return resp, nil
}

// pipeWriter is the ResponseWriter of an in-process request: the body
// goes to a pipe the client reads.
type pipeWriter struct {
	header http.Header
	sent   http.Header
	body   *io.PipeWriter
	once   sync.Once
	ready  chan struct{}
	code   int
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(code int) { w.writeHeader(code) }

func (w *pipeWriter) writeHeader(code int) {
	w.once.Do(func() {
		w.code, w.sent = code, w.header.Clone()
		close(w.ready)
	})
}

func (w *pipeWriter) Write(b []byte) (int, error) {
	w.writeHeader(http.StatusOK)
	return w.body.Write(b)
}

// Flush does nothing: every Write reaches the reader already.
func (w *pipeWriter) Flush() {}
