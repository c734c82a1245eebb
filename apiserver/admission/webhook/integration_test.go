package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/apiserver/admission/webhook"
	"github.com/kapi-dev/kapi/audit"
	ar "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
)

type gizmo struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            gizmoSpec `json:"spec,omitempty"`
}

type gizmoSpec struct {
	Color string `json:"color,omitempty"`
}

// newHookServer is a TLS webhook: /mutate labels every object, /validate
// refuses black ones with 422, warning and annotating.
func newHookServer(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rv struct {
			Request struct {
				UID    string          `json:"uid"`
				Object json.RawMessage `json:"object"`
			} `json:"request"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &rv)
		resp := map[string]any{"uid": rv.Request.UID, "allowed": true}
		switch r.URL.Path {
		case "/mutate":
			resp["patchType"] = "JSONPatch"
			resp["patch"] = []byte(`[{"op":"add","path":"/metadata/labels","value":{"mutated":"yes"}}]`)
			resp["auditAnnotations"] = map[string]string{"seen": "yes"}
		case "/validate":
			if strings.Contains(string(rv.Request.Object), `"black"`) {
				resp["allowed"] = false
				resp["status"] = map[string]any{"code": 422, "message": "black is banned", "reason": "Invalid"}
			}
			resp["warnings"] = []string{"aw: looked at it"}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp})
	}))
	t.Cleanup(ts.Close)
	return ts, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw}))
}

// A real server with the plugin: configurations written through the API
// take effect on the next write, patches are stored, denials answered
// with the webhook's code and kube's message, warnings passed on.
func TestServerWithWebhooks(t *testing.T) {
	hooks, ca := newHookServer(t)
	p := webhook.New(webhook.Options{Logf: t.Logf})
	var events syncBuffer
	srv := apiserver.New(apiserver.Options{
		Audit:               audit.NewLogger(&events, nil),
		MutatingAdmission:   []apiserver.AdmissionFunc{p.Mutate},
		ValidatingAdmission: []apiserver.AdmissionFunc{p.Validate},
	})
	srv.Register(apiserver.Kind{Group: "toys.example.com", Version: "v1", Kind: "Gizmo", Resource: "gizmos",
		Namespaced: true, New: func() meta.Object { return &gizmo{} }})
	srv.Register(apiserver.Kind{Group: webhook.Group, Version: "v1", Kind: "MutatingWebhookConfiguration",
		Resource: "mutatingwebhookconfigurations", New: func() meta.Object { return &ar.MutatingWebhookConfiguration{} }})
	srv.Register(apiserver.Kind{Group: webhook.Group, Version: "v1", Kind: "ValidatingWebhookConfiguration",
		Resource: "validatingwebhookconfigurations", New: func() meta.Object { return &ar.ValidatingWebhookConfiguration{} }})
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	if err := p.Start(srv); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)

	caJSON, _ := json.Marshal([]byte(ca))
	rules := `"rules":[{"operations":["CREATE","UPDATE"],"apiGroups":["toys.example.com"],"apiVersions":["v1"],"resources":["gizmos"]}]`
	hookOn := func(name, url, fp string) string {
		return fmt.Sprintf(`{"name":%q,"clientConfig":{"url":%q,"caBundle":%s},%s,"sideEffects":"None","admissionReviewVersions":["v1"],"failurePolicy":%q}`,
			name, url, caJSON, rules, fp)
	}
	hook := func(name, path string) string {
		return hookOn(name, hooks.URL+path, "Fail")
	}
	post(t, ts.URL+"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
		`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":"aw-m"},"webhooks":[`+hook("label.aw.dev", "/mutate")+`]}`, 201)
	post(t, ts.URL+"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
		`{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"aw-v"},"webhooks":[`+
			hook("deny.aw.dev", "/validate")+`,`+hookOn("broken.aw.dev", "https://127.0.0.1:1/nothing", "Ignore")+`]}`, 201)

	// Like kube's informers, the watch cache sees a configuration a
	// moment after it is written; wait for it.
	for _, r := range []string{"mutatingwebhookconfigurations", "validatingwebhookconfigurations"} {
		c, _ := srv.Cached(webhook.Group, r)
		if err := c.Sync(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	const gizmos = "/apis/toys.example.com/v1/namespaces/default/gizmos"
	resp, body := post(t, ts.URL+gizmos, `{"apiVersion":"toys.example.com/v1","kind":"Gizmo","metadata":{"name":"red"},"spec":{"color":"red"}}`, 201)
	if !strings.Contains(body, `"labels":{"mutated":"yes"}`) {
		t.Errorf("not mutated: %s", body)
	}
	if w := resp.Header.Get("Warning"); w != `299 - "aw: looked at it"` {
		t.Errorf("Warning %q", w)
	}
	want := map[string]string{
		"label.aw.dev/seen": "yes",
		"mutation.webhook.admission.k8s.io/round_0_index_0":               `{"configuration":"aw-m","webhook":"label.aw.dev","mutated":true}`,
		"failed-open.validating.webhook.admission.k8s.io/round_0_index_1": "broken.aw.dev",
	}
	if diff := cmp.Diff(want, createAnnotations(t, &events, "red")); diff != "" {
		t.Errorf("audit annotations (-want +got):\n%s", diff)
	}
	_, body = post(t, ts.URL+gizmos, `{"apiVersion":"toys.example.com/v1","kind":"Gizmo","metadata":{"name":"black"},"spec":{"color":"black"}}`, 422)
	var st meta.Status
	_ = json.Unmarshal([]byte(body), &st)
	if st.Message != `admission webhook "deny.aw.dev" denied the request: black is banned` || st.Reason != "Invalid" || st.Code != 422 {
		t.Errorf("denial %s", body)
	}
	get, err := http.Get(ts.URL + gizmos + "/black")
	if err != nil {
		t.Fatal(err)
	}
	get.Body.Close()
	if get.StatusCode != 404 {
		t.Errorf("a denied gizmo was stored: %d", get.StatusCode)
	}
}

// syncBuffer is a buffer the audit logger writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// createAnnotations are the annotations of the audit event of the
// create of the gizmo name, once it is written.
func createAnnotations(t *testing.T, events *syncBuffer, name string) map[string]string {
	t.Helper()
	for range 100 {
		for _, line := range strings.Split(events.String(), "\n") {
			var ev struct {
				Verb        string                          `json:"verb"`
				Stage       string                          `json:"stage"`
				ObjectRef   struct{ Resource, Name string } `json:"objectRef"`
				Annotations map[string]string               `json:"annotations"`
			}
			if json.Unmarshal([]byte(line), &ev) == nil && ev.Verb == "create" && ev.ObjectRef.Resource == "gizmos" && ev.Stage == "ResponseComplete" {
				return ev.Annotations
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no audit event for the create of %s:\n%s", name, events.String())
	return nil
}

func post(t *testing.T, url, body string, want int) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		t.Fatalf("POST %s: %d %s, want %d", url, resp.StatusCode, b, want)
	}
	return resp, string(b)
}
