package prometheus_test

import (
	"context"
	"strings"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/kapi-dev/kapi/apiserver/admission/webhook"
	kprom "github.com/kapi-dev/kapi/metrics/prometheus"
)

// The webhook metrics carry kube-apiserver's names and labels, and codes
// above 600 are cut to 600.
func TestWebhookMetrics(t *testing.T) {
	reg := prom.NewRegistry()
	m, err := kprom.NewWebhookMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m.ObserveWebhook(ctx, "v.aw.dev", "validating", "CREATE", true, 409, time.Millisecond)
	m.ObserveWebhookRejection(ctx, "v.aw.dev", "validating", "CREATE", webhook.RejectionNoError, 409)
	m.ObserveWebhookRejection(ctx, "x.aw.dev", "admit", "UPDATE", webhook.RejectionCallingWebhook, 999)
	m.ObserveWebhookFailOpen(ctx, "i.aw.dev", "admit")
	const want = `
# HELP apiserver_admission_webhook_fail_open_count [ALPHA] Admission webhook fail open count, identified by name and broken out for each admission type (validating or admit).
# TYPE apiserver_admission_webhook_fail_open_count counter
apiserver_admission_webhook_fail_open_count{name="i.aw.dev",type="admit"} 1
# HELP apiserver_admission_webhook_rejection_count [ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.
# TYPE apiserver_admission_webhook_rejection_count counter
apiserver_admission_webhook_rejection_count{error_type="calling_webhook_error",name="x.aw.dev",operation="UPDATE",rejection_code="600",type="admit"} 1
apiserver_admission_webhook_rejection_count{error_type="no_error",name="v.aw.dev",operation="CREATE",rejection_code="409",type="validating"} 1
# HELP apiserver_admission_webhook_request_total [ALPHA] Admission webhook request total, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.
# TYPE apiserver_admission_webhook_request_total counter
apiserver_admission_webhook_request_total{code="409",name="v.aw.dev",operation="CREATE",rejected="true",type="validating"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"apiserver_admission_webhook_fail_open_count", "apiserver_admission_webhook_rejection_count", "apiserver_admission_webhook_request_total"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(reg, "apiserver_admission_webhook_admission_duration_seconds"); n != 1 {
		t.Errorf("%d latency series", n)
	}
}
