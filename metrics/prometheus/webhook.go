package prometheus

import (
	"context"
	"strconv"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/kapi-dev/kapi/apiserver/admission/webhook"
)

// WebhookMetrics is a [webhook.Observer] keeping kube-apiserver's
// admission webhook metrics, with kube's names, labels, buckets and help.
// Make it with [NewWebhookMetrics].
type WebhookMetrics struct {
	latency   *prom.HistogramVec
	requests  *prom.CounterVec
	rejection *prom.CounterVec
	failOpen  *prom.CounterVec
}

var _ webhook.Observer = (*WebhookMetrics)(nil)

// NewWebhookMetrics registers the admission webhook metrics on reg.
func NewWebhookMetrics(reg prom.Registerer) (*WebhookMetrics, error) {
	m := &WebhookMetrics{
		latency: prom.NewHistogramVec(prom.HistogramOpts{Name: "apiserver_admission_webhook_admission_duration_seconds",
			Help:    "[STABLE] Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
			Buckets: []float64{0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25}}, []string{"name", "type", "operation", "rejected"}),
		requests: prom.NewCounterVec(prom.CounterOpts{Name: "apiserver_admission_webhook_request_total",
			Help: "[ALPHA] Admission webhook request total, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded."},
			[]string{"name", "type", "operation", "code", "rejected"}),
		rejection: prom.NewCounterVec(prom.CounterOpts{Name: "apiserver_admission_webhook_rejection_count",
			Help: "[ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded."},
			[]string{"name", "type", "operation", "error_type", "rejection_code"}),
		failOpen: prom.NewCounterVec(prom.CounterOpts{Name: "apiserver_admission_webhook_fail_open_count",
			Help: "[ALPHA] Admission webhook fail open count, identified by name and broken out for each admission type (validating or admit)."},
			[]string{"name", "type"}),
	}
	for _, c := range []prom.Collector{m.latency, m.requests, m.rejection, m.failOpen} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// ObserveWebhook counts a call and its latency.
func (m *WebhookMetrics) ObserveWebhook(_ context.Context, name, step, operation string, rejected bool, code int, elapsed time.Duration) {
	r := strconv.FormatBool(rejected)
	m.requests.WithLabelValues(name, step, operation, strconv.Itoa(min(code, 600)), r).Inc()
	m.latency.WithLabelValues(name, step, operation, r).Observe(elapsed.Seconds())
}

// ObserveWebhookRejection counts a call that rejected the request.
func (m *WebhookMetrics) ObserveWebhookRejection(_ context.Context, name, step, operation string, errorType webhook.RejectionType, code int) {
	m.rejection.WithLabelValues(name, step, operation, string(errorType), strconv.Itoa(min(code, 600))).Inc()
}

// ObserveWebhookFailOpen counts a call whose failure was ignored.
func (m *WebhookMetrics) ObserveWebhookFailOpen(_ context.Context, name, step string) {
	m.failOpen.WithLabelValues(name, step).Inc()
}
