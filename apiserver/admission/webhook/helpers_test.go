package webhook

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kapi-dev/kapi/apiserver/admission"
	ar "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
)

// source is a Source over a fixed list, counting its lists.
type source struct {
	mu    sync.Mutex
	rev   int64
	objs  []meta.Object
	lists int
}

func (s *source) Changes() uint64 { s.mu.Lock(); defer s.mu.Unlock(); return uint64(s.rev) }

func (s *source) List(context.Context) ([]meta.Object, int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	return s.objs, s.rev, nil
}

func (s *source) set(objs ...meta.Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rev++
	s.objs = objs
}

// typed is a small typed kind served in v1 and v1beta1; v1beta1 names
// spec.replicas spec.count.
type typed struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            typedSpec `json:"spec"`
}

type typedSpec struct {
	Replicas int32 `json:"replicas,omitempty"`
	Count    int32 `json:"count,omitempty"`
}

type typedVersions struct{}

func (typedVersions) Served() []string { return []string{"v1", "v1beta1"} }

func (typedVersions) Convert(o meta.Object, version string) (meta.Object, error) {
	in := o.(*typed)
	out := *in
	out.Labels = maps.Clone(in.Labels)
	out.APIVersion = "stable.example.com/" + version
	out.Spec = typedSpec{}
	n := in.Spec.Replicas + in.Spec.Count
	if version == "v1" {
		out.Spec.Replicas = n
	} else {
		out.Spec.Count = n
	}
	return &out, nil
}

func (typedVersions) New(string) meta.Object { return &typed{} }

func widgetRequest(op admission.Operation, version string, labels map[string]string) *admission.Request {
	obj := &typed{TypeMeta: meta.TypeMeta{APIVersion: "stable.example.com/" + version, Kind: "Widget"},
		ObjectMeta: meta.ObjectMeta{Name: "aw-1", Namespace: "aw-ns", Labels: labels}, Spec: typedSpec{Replicas: 1}}
	if version == "v1beta1" {
		obj.Spec = typedSpec{Count: 1}
	}
	a := &admission.Request{
		Operation: op, Kind: meta.GroupVersionKind{Group: "stable.example.com", Version: version, Kind: "Widget"},
		Resource:  meta.GroupResource{Group: "stable.example.com", Resource: "widgets"},
		Namespace: "aw-ns", Name: "aw-1", Namespaced: true, Versions: typedVersions{},
		Options: &meta.CreateOptions{TypeMeta: meta.TypeMeta{Kind: "CreateOptions", APIVersion: "meta.k8s.io/v1"}},
	}
	switch op {
	case admission.Delete:
		a.OldObject = obj
		a.Options = &meta.DeleteOptions{TypeMeta: meta.TypeMeta{Kind: "DeleteOptions", APIVersion: "meta.k8s.io/v1"}}
	case admission.Update:
		a.Object, a.OldObject = obj, obj
	default:
		a.Object = obj
	}
	return a
}

// server is a TLS webhook that answers with answer and keeps what it
// was sent.
type server struct {
	*httptest.Server
	ca       []byte
	mu       sync.Mutex
	received []*review
	paths    []string
}

func newServer(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, rv *review)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var rv review
		_ = json.Unmarshal(body, &rv)
		s.mu.Lock()
		s.received = append(s.received, &rv)
		s.paths = append(s.paths, r.URL.RequestURI())
		s.mu.Unlock()
		answer(w, r, &rv)
	}))
	t.Cleanup(s.Close)
	s.ca = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	return s
}

func (s *server) reviews() []*review {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*review(nil), s.received...)
}

// respond answers rv with resp, its uid filled in.
func respond(w http.ResponseWriter, rv *review, resp reviewResponse) {
	resp.UID = rv.Request.UID
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&review{APIVersion: rv.APIVersion, Kind: "AdmissionReview", Response: &resp})
}

func allow(w http.ResponseWriter, _ *http.Request, rv *review) {
	respond(w, rv, reviewResponse{Allowed: true})
}

// patchWith answers with a JSON patch.
func patchWith(patch string) func(http.ResponseWriter, *http.Request, *review) {
	return func(w http.ResponseWriter, _ *http.Request, rv *review) {
		pt := patchTypeJSON
		respond(w, rv, reviewResponse{Allowed: true, Patch: []byte(patch), PatchType: &pt})
	}
}

func ptr[T any](v T) *T { return &v }

var widgetRules = []ar.RuleWithOperations{{
	Operations: []ar.OperationType{ar.OperationAll},
	Rule:       ar.Rule{APIGroups: []string{"stable.example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}},
}}

func mutatingHook(name string, s *server, fp ar.FailurePolicyType) ar.MutatingWebhook {
	return ar.MutatingWebhook{
		Name: name, ClientConfig: ar.WebhookClientConfig{URL: ptr(s.URL + "/mutate"), CABundle: s.ca},
		Rules: widgetRules, FailurePolicy: &fp, SideEffects: ptr(ar.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"}, TimeoutSeconds: ptr(int32(2)),
	}
}

func validatingHook(name string, s *server, fp ar.FailurePolicyType) ar.ValidatingWebhook {
	return ar.ValidatingWebhook{
		Name: name, ClientConfig: ar.WebhookClientConfig{URL: ptr(s.URL + "/validate"), CABundle: s.ca},
		Rules: widgetRules, FailurePolicy: &fp, SideEffects: ptr(ar.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"}, TimeoutSeconds: ptr(int32(2)),
	}
}

func mutatingConfig(name string, hooks ...ar.MutatingWebhook) *ar.MutatingWebhookConfiguration {
	return &ar.MutatingWebhookConfiguration{ObjectMeta: meta.ObjectMeta{Name: name}, Webhooks: hooks}
}

func validatingConfig(name string, hooks ...ar.ValidatingWebhook) *ar.ValidatingWebhookConfiguration {
	return &ar.ValidatingWebhookConfiguration{ObjectMeta: meta.ObjectMeta{Name: name}, Webhooks: hooks}
}

// newPlugin serves the given configurations.
func newPlugin(t *testing.T, cfgs ...meta.Object) (*Plugin, *source, *source) {
	t.Helper()
	mut, val := &source{}, &source{}
	var ms, vs []meta.Object
	for _, c := range cfgs {
		if _, ok := c.(*ar.MutatingWebhookConfiguration); ok {
			ms = append(ms, c)
		} else {
			vs = append(vs, c)
		}
	}
	mut.set(ms...)
	val.set(vs...)
	p := New(Options{Logf: t.Logf})
	p.SetSources(Sources{Mutating: mut, Validating: val})
	return p, mut, val
}

// errText is err's message, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func hasPrefix(s, p string) bool { return strings.HasPrefix(s, p) }
