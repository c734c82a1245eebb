package filters

import "net/http"

// StatusRecorder remembers the status code for the request log and
// whether anything was written, so a late panic does not write twice, and
// counts the body's bytes for the observer.
type StatusRecorder struct {
	http.ResponseWriter
	// Code is the status code written (200 until one is).
	Code int
	// Size is the number of body bytes written.
	Size int64
	// Wrote is set once anything was written.
	Wrote bool
}

// WriteHeader records the first status code.
func (r *StatusRecorder) WriteHeader(code int) {
	if !r.Wrote {
		r.Code = code
		r.Wrote = true
	}
	r.ResponseWriter.WriteHeader(code)
}

// Write counts the body's bytes.
func (r *StatusRecorder) Write(b []byte) (int, error) {
	r.Wrote = true
	n, err := r.ResponseWriter.Write(b)
	r.Size += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach Flush and deadlines.
func (r *StatusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
