package apiserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// TestScaleWithoutReplicas: the Scale of an object without its desired
// replica count is answered as kube-apiserver answers for a custom
// resource: a read is a 500, a patch that does not set the count a 400,
// and a patch or update that sets it writes it. A typed object lacks it
// when the spec was left out; an unstructured one also when the spec
// has no replicas.
func TestScaleWithoutReplicas(t *testing.T) {
	scaled := apiserver.Subresources{Status: true, Scale: &apiserver.Scale{SpecReplicasPath: ".spec.replicas",
		StatusReplicasPath: ".status.readyReplicas"}}
	typed := lampKind()
	typed.Subresources = scaled
	dyn := apiserver.Kind{Group: "stable.example.com", Version: "v1", Kind: "Thing", Resource: "things",
		Namespaced: true, Subresources: scaled, New: func() meta.Object { return &meta.Unstructured{} }}
	const notExist = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
		`"message":"Internal error occurred: the spec replicas field \".spec.replicas\" does not exist","reason":"InternalError",` +
		`"details":{"causes":[{"message":"the spec replicas field \".spec.replicas\" does not exist"}]},"code":500}`
	const empty = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
		`"message":"the spec replicas field \".spec.replicas\" cannot be empty","reason":"BadRequest","code":400}`
	tests := []struct {
		name, path, object string
	}{
		{"typed without spec", "/apis/stable.example.com/v1/namespaces/default/lamps", lampOf("")},
		{"unstructured without spec", "/apis/stable.example.com/v1/namespaces/default/things",
			`{"apiVersion":"stable.example.com/v1","kind":"Thing","metadata":{"name":"l"}}`},
		{"unstructured without replicas", "/apis/stable.example.com/v1/namespaces/default/things",
			`{"apiVersion":"stable.example.com/v1","kind":"Thing","metadata":{"name":"l"},"spec":{"color":"red"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := serveKinds(t, apiserver.Options{}, typed, dyn)
			if r := do(t, ts, "POST", tc.path, "application/json", tc.object); r.code != http.StatusCreated {
				t.Fatalf("create: %d %s", r.code, r.body)
			}
			scale := tc.path + "/l/scale"
			steps := []struct {
				method, ct, body string
				code             int
				want             string // the whole answer, when a Status
			}{
				{"GET", "", "", http.StatusInternalServerError, notExist},
				{"PATCH", "application/merge-patch+json", `{"metadata":{"labels":{"a":"b"}}}`, http.StatusBadRequest, empty},
				{"PATCH", "application/merge-patch+json", `{"spec":{"replicas":3}}`, http.StatusOK, ""},
				{"GET", "", "", http.StatusOK, ""},
			}
			for _, s := range steps {
				r := do(t, ts, s.method, scale, s.ct, s.body)
				if r.code != s.code {
					t.Fatalf("%s %s: %d %s, want %d", s.method, s.body, r.code, r.body, s.code)
				}
				if s.want != "" {
					if diff := cmp.Diff(s.want, strings.TrimSpace(string(r.body))); diff != "" {
						t.Errorf("%s %s (-want +got):\n%s", s.method, s.body, diff)
					}
				}
			}
		})
	}
}
