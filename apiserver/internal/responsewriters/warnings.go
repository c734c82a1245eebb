package responsewriters

import (
	"context"
	"net/http"
	"strings"
)

// AddWarning adds a Warning header in the form kube-apiserver uses: code
// 299, agent "-", the text quoted.
func AddWarning(h http.Header, msg string) {
	h.Add("Warning", `299 - "`+strings.ReplaceAll(msg, `"`, `\"`)+`"`)
}

// warningsKey carries a request's warnings on its context.
type warningsKey struct{}

// warnings adds Warning headers to a response, each text once (a write
// retried after a conflict validates again).
type warnings struct {
	h    http.Header
	seen map[string]bool
}

// WithWarnings returns ctx carrying w's headers, for [Warn]: what runs
// deep in a request (validation rules) warns without knowing the
// response.
func WithWarnings(ctx context.Context, w http.ResponseWriter) context.Context {
	return context.WithValue(ctx, warningsKey{}, &warnings{h: w.Header()})
}

// Warn adds a warning to the response of the request ctx belongs to,
// once per text; nothing when ctx carries no response (see
// [WithWarnings]).
func Warn(ctx context.Context, msg string) {
	ws, _ := ctx.Value(warningsKey{}).(*warnings)
	if ws == nil || ws.seen[msg] {
		return
	}
	if ws.seen == nil {
		ws.seen = map[string]bool{}
	}
	ws.seen[msg] = true
	AddWarning(ws.h, msg)
}
