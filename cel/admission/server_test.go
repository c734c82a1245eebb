package admission_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	celadm "github.com/kapi-dev/kapi/cel/admission"
	"github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
)

// widget is a minimal Widget for policies to guard.
type widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            widgetSpec `json:"spec,omitempty"`
}

type widgetSpec struct {
	Replicas *int32 `json:"replicas,omitempty"`
	Color    string `json:"color,omitempty"`
}

func widgetKind() apiserver.Kind {
	return apiserver.Kind{Group: "stable.example.com", Version: "v1", Kind: "Widget", Resource: "widgets",
		Namespaced: true, New: func() meta.Object { return &widget{} }}
}

// policyKinds declares the two policy kinds until their package
// registers them itself.
func policyKinds() []apiserver.Kind {
	g, v := "admissionregistration.k8s.io", "v1"
	return []apiserver.Kind{
		{Group: g, Version: v, Kind: "ValidatingAdmissionPolicy", Resource: "validatingadmissionpolicies",
			New: func() meta.Object { return &admissionregistrationv1.ValidatingAdmissionPolicy{} }},
		{Group: g, Version: v, Kind: "ValidatingAdmissionPolicyBinding", Resource: "validatingadmissionpolicybindings",
			New: func() meta.Object { return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{} }},
	}
}

// testServer is a server with the validating policy plugin.
type testServer struct {
	t   *testing.T
	url string
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	p, err := celadm.NewValidating(celadm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := apiserver.New(apiserver.Options{ValidatingAdmission: []apiserver.AdmissionFunc{p.Validate}})
	srv.Register(widgetKind()).Register(corev1.ConfigMapKind()).Register(corev1.NamespaceKind())
	for _, k := range policyKinds() {
		srv.Register(k)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	p.Start(srv)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Close)
	return &testServer{t: t, url: ts.URL}
}

type response struct {
	code     int
	warnings []string
	status   meta.Status
	body     string
}

func (s *testServer) do(method, path, body string) response {
	s.t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := response{code: resp.StatusCode, warnings: resp.Header.Values("Warning"), body: string(b)}
	if resp.StatusCode >= 300 {
		_ = json.Unmarshal(b, &r.status)
	}
	return r
}

// mustCreate posts body to path and fails the test unless it is created.
func (s *testServer) mustCreate(path, body string) {
	s.t.Helper()
	if r := s.do("POST", path, body); r.code != http.StatusCreated {
		s.t.Fatalf("POST %s: %d %s", path, r.code, r.body)
	}
}

const (
	policiesPath = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	bindingsPath = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
	widgetsPath  = "/apis/stable.example.com/v1/namespaces/ap-ns/widgets"
)

// policy returns a policy guarding widgets with spec (JSON, without
// matchConstraints).
func policy(name, spec string) string {
	return `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"` + name + `"},
	"spec":{"matchConstraints":{"resourceRules":[{"apiGroups":["stable.example.com"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["widgets"]}]},` + spec + `}}`
}

func binding(name, policy, spec string) string {
	return `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"` + name + `"},
	"spec":{"policyName":"` + policy + `",` + spec + `}}`
}

func widgetJSON(name string, replicas int, color string) string {
	b, _ := json.Marshal(map[string]any{"apiVersion": "stable.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name}, "spec": map[string]any{"replicas": replicas, "color": color}})
	return string(b)
}
