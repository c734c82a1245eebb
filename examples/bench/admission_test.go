package bench_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// admissionSetups are what BenchmarkCreateAdmission measures creates
// through: nothing beyond the server's own admission, and one
// ValidatingAdmissionPolicy with three validations bound to every
// Widget.
var admissionSetups = []struct {
	name    string
	install func(testing.TB, http.Handler)
}{
	{"none", func(testing.TB, http.Handler) {}},
	{"policy-3-validations", installWidgetPolicy},
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
