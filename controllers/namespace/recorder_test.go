package namespace_test

import (
	"bytes"
	"net/http"
)

// recorder is a minimal ResponseWriter for calling the handler directly.
type recorder struct {
	header http.Header
	code   int
	wrote  bool
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.code, r.wrote = code, true
	}
}
func (r *recorder) Write(b []byte) (int, error) { r.wrote = true; return r.body.Write(b) }
