package apiserver

import (
	"context"
	"net/http"
)

// warningsKey carries a request's warning writer on its context.
type warningsKey struct{}

// warnings adds Warning headers to a response, each text once (a write
// retried after a conflict validates again).
type warnings struct {
	h    http.Header
	seen map[string]bool
}

func withWarnings(ctx context.Context, w http.ResponseWriter) context.Context {
	return context.WithValue(ctx, warningsKey{}, &warnings{h: w.Header()})
}

// warn adds a warning to the response of the request ctx belongs to.
func warn(ctx context.Context, msg string) {
	ws, _ := ctx.Value(warningsKey{}).(*warnings)
	if ws == nil || ws.seen[msg] {
		return
	}
	if ws.seen == nil {
		ws.seen = map[string]bool{}
	}
	ws.seen[msg] = true
	addWarning(headerWriter{ws.h}, msg)
}

// headerWriter lets addWarning write to a bare header.
type headerWriter struct{ h http.Header }

func (w headerWriter) Header() http.Header { return w.h }

func (w headerWriter) Write(b []byte) (int, error) { return len(b), nil }

func (w headerWriter) WriteHeader(int) {}
