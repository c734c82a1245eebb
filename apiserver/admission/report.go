package admission

import (
	"context"

	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
)

// Warn adds a Warning header to the response of the write ctx belongs
// to, once per text, as kube-apiserver passes on the warnings of
// webhooks and policies.
func Warn(ctx context.Context, msg string) { responsewriters.Warn(ctx, msg) }

// AuditAnnotation adds key=value to the audit record of the write ctx
// belongs to (the first value of a key stays), as kube-apiserver records
// the audit annotations of webhooks and policies.
func AuditAnnotation(ctx context.Context, key, value string) {
	filters.AuditAnnotation(ctx, key, value)
}
