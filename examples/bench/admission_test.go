package bench_test

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// admissionSetups are what BenchmarkCreateAdmission measures creates
// through: nothing beyond the server's own admission, one
// ValidatingAdmissionPolicy with three validations bound to every
// Widget, and one validating webhook on loopback allowing every Widget
// create.
var admissionSetups = []struct {
	name    string
	install func(testing.TB, http.Handler)
}{
	{"none", func(testing.TB, http.Handler) {}},
	{"policy-3-validations", installWidgetPolicy},
	{"webhook-1-validating", func(tb testing.TB, h http.Handler) { installWidgetWebhook(tb, h, nil) }},
}

// BenchmarkCreateAdmission POSTs Widgets, one client in process, through
// each admission setup; compare their ns/op for what admission costs.
func BenchmarkCreateAdmission(b *testing.B) {
	for _, s := range admissionSetups {
		b.Run("admission="+s.name, func(b *testing.B) {
			f := freshFixture(b)
			s.install(b, f.h)
			c := f.newClient(inProcess)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := c.create("create", i); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// installWidgetPolicy stores a policy of three validations every bench
// Widget passes, and its binding.
func installWidgetPolicy(tb testing.TB, h http.Handler) {
	postJSON(tb, h, "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", `{
  "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
  "metadata": {"name": "widgets"},
  "spec": {"failurePolicy": "Fail",
    "matchConstraints": {"resourceRules": [{"apiGroups": ["stable.example.com"], "apiVersions": ["*"],
      "operations": ["CREATE", "UPDATE"], "resources": ["widgets"]}]},
    "validations": [
      {"expression": "!has(object.spec.replicas) || object.spec.replicas <= 100"},
      {"expression": "object.metadata.name.size() < 64"},
      {"expression": "!has(object.spec.color) || object.spec.color != 'black'"}]}}`)
	postJSON(tb, h, "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", `{
  "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
  "metadata": {"name": "widgets"}, "spec": {"policyName": "widgets", "validationActions": ["Deny"]}}`)
}

func postJSON(tb testing.TB, h http.Handler, path, body string) {
	tb.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated {
		tb.Fatal(fmt.Errorf("POST %s: %d %s", path, rec.Code, rec.Body))
	}
}

// TestWidgetPolicyDenies keeps the benchmark's policy honest: it is
// evaluated on every create, so a Widget it forbids is refused.
func TestWidgetPolicyDenies(t *testing.T) {
	f := freshFixture(t)
	installWidgetPolicy(t, f.h)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/apis/stable.example.com/v1/namespaces/default/widgets",
		strings.NewReader(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":101}}`))
	req.Header.Set("Content-Type", "application/json")
	f.h.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("a Widget the policy forbids: %d %s", rec.Code, rec.Body)
	}
}

// installWidgetWebhook stores a ValidatingWebhookConfiguration whose
// one webhook (Widget creates, sideEffects None, failurePolicy Fail)
// is an HTTPS server on loopback that allows every review and counts
// them in calls (when not nil). The server is closed when tb ends.
func installWidgetWebhook(tb testing.TB, h http.Handler, calls *atomic.Int64) {
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls != nil {
			calls.Add(1)
		}
		allowReview(w, r)
	}))
	tb.Cleanup(s.Close)
	ca, err := json.Marshal(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw}))
	if err != nil {
		tb.Fatal(err)
	}
	postJSON(tb, h, "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", `{
  "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
  "metadata": {"name": "widgets"},
  "webhooks": [{"name": "widgets.bench.example.com", "admissionReviewVersions": ["v1"],
    "sideEffects": "None", "failurePolicy": "Fail",
    "clientConfig": {"url": "`+s.URL+`/validate", "caBundle": `+string(ca)+`},
    "rules": [{"apiGroups": ["stable.example.com"], "apiVersions": ["*"],
      "operations": ["CREATE"], "resources": ["widgets"]}]}]}`)
}

// allowReview answers an AdmissionReview v1 with allowed for its uid.
func allowReview(w http.ResponseWriter, r *http.Request) {
	var rv struct {
		Request struct {
			UID string `json:"uid"`
		} `json:"request"`
	}
	if err := json.NewDecoder(r.Body).Decode(&rv); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":%q,"allowed":true}}`,
		rv.Request.UID)
}

// TestWidgetWebhookCalled keeps the benchmark's webhook honest: it is
// called once for every Widget create.
func TestWidgetWebhookCalled(t *testing.T) {
	f := freshFixture(t)
	var calls atomic.Int64
	installWidgetWebhook(t, f.h, &calls)
	c := f.newClient(inProcess)
	const creates = 5
	for i := range creates {
		if err := c.create("called", i); err != nil {
			t.Fatal(err)
		}
	}
	if got := calls.Load(); got != creates {
		t.Errorf("webhook called %d times for %d creates", got, creates)
	}
}
