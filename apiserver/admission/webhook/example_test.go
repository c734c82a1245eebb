package webhook_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/apiserver/admission/webhook"
	ar "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// static is a Source of fixed configurations.
type static []meta.Object

func (s static) Changes() uint64 { return 1 }

func (s static) List(context.Context) ([]meta.Object, int64, error) { return s, 1, nil }

// A validating webhook refuses a write; the client gets the webhook's
// code and kube's message. A server binds the plugin with Start instead
// of SetSources.
func Example() {
	hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rv struct {
			Request struct{ UID string } `json:"request"`
		}
		_ = json.NewDecoder(r.Body).Decode(&rv)
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
			"response": map[string]any{"uid": rv.Request.UID, "allowed": false, "status": map[string]any{"code": 409, "message": "not today"}}})
	}))
	defer hook.Close()
	url := hook.URL
	fail, none := ar.Fail, ar.SideEffectClassNone
	cfg := &ar.ValidatingWebhookConfiguration{ObjectMeta: meta.ObjectMeta{Name: "example"}, Webhooks: []ar.ValidatingWebhook{{
		Name:         "deny.example.com",
		ClientConfig: ar.WebhookClientConfig{URL: &url, CABundle: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})},
		Rules: []ar.RuleWithOperations{{Operations: []ar.OperationType{ar.Create},
			Rule: ar.Rule{APIGroups: []string{"toys.example.com"}, APIVersions: []string{"v1"}, Resources: []string{"gizmos"}}}},
		FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
	}}}

	p := webhook.New(webhook.Options{})
	p.SetSources(webhook.Sources{Validating: static{cfg}})
	a := &admission.Request{
		Operation: admission.Create, Kind: meta.GroupVersionKind{Group: "toys.example.com", Version: "v1", Kind: "Gizmo"},
		Resource: meta.GroupResource{Group: "toys.example.com", Resource: "gizmos"}, Namespace: "default", Name: "g",
		Object: &meta.Unstructured{ObjectMeta: meta.ObjectMeta{Name: "g", Namespace: "default"}},
	}
	err := p.Validate(context.Background(), a)
	fmt.Println(status.CodeOf(err), err)
	// Output:
	// 409 admission webhook "deny.example.com" denied the request: not today
}
