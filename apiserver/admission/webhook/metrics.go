package webhook

import (
	"context"
	"time"
)

// Observer receives the measurements kube-apiserver exports as
// apiserver_admission_webhook_admission_duration_seconds and
// apiserver_admission_webhook_request_total (ObserveWebhook),
// apiserver_admission_webhook_rejection_count (ObserveWebhookRejection)
// and apiserver_admission_webhook_fail_open_count (ObserveWebhookFailOpen).
// Step is "admit" for mutating webhooks and "validating" for validating
// ones, as kube labels them; codes above 600 are reported as 600.
type Observer interface {
	ObserveWebhook(ctx context.Context, name, step, operation string, rejected bool, code int, elapsed time.Duration)
	ObserveWebhookRejection(ctx context.Context, name, step, operation string, errorType RejectionType, code int)
	ObserveWebhookFailOpen(ctx context.Context, name, step string)
}

// RejectionType is the error_type label of a rejection.
type RejectionType string

// The rejection types kube counts.
const (
	RejectionCallingWebhook    RejectionType = "calling_webhook_error"
	RejectionAPIServerInternal RejectionType = "apiserver_internal_error"
	RejectionNoError           RejectionType = "no_error"
)

const (
	stepAdmit      = "admit"
	stepValidating = "validating"
)

func capCode(code int) int { return min(code, 600) }

// observe records one call's outcome as kube's dispatchers do.
func (p *Plugin) observe(ctx context.Context, h *hook, step, op string, err error, failOpen bool, elapsed time.Duration) {
	o := p.opts.Observer
	if o == nil {
		return
	}
	switch e := err.(type) {
	case nil:
		o.ObserveWebhook(ctx, h.name, step, op, false, 200, elapsed)
	case *callError:
		rejected := !failOpen
		if rejected && !e.canceled() {
			o.ObserveWebhookRejection(ctx, h.name, step, op, RejectionCallingWebhook, capCode(e.code))
		}
		o.ObserveWebhook(ctx, h.name, step, op, rejected, capCode(e.code), elapsed)
	case *rejection:
		code := int(e.err.Status.Code)
		o.ObserveWebhookRejection(ctx, h.name, step, op, RejectionNoError, capCode(code))
		o.ObserveWebhook(ctx, h.name, step, op, true, capCode(code), elapsed)
	default:
		o.ObserveWebhookRejection(ctx, h.name, step, op, RejectionAPIServerInternal, 0)
		o.ObserveWebhook(ctx, h.name, step, op, true, 0, elapsed)
	}
	if failOpen {
		o.ObserveWebhookFailOpen(ctx, h.name, step)
	}
}
