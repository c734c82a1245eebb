package admission_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	kadm "github.com/kapi-dev/kapi/apiserver/admission"
	celadm "github.com/kapi-dev/kapi/cel/admission"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
)

// TestMutatingOtherVersion checks a policy whose rules name another
// version of the request's kind (as kube's matchPolicy Equivalent
// does): the object is mutated in that version and converted back.
func TestMutatingOtherVersion(t *testing.T) {
	convert := func(obj *meta.Unstructured, to string) error {
		spec, _ := obj.Content["spec"].(map[string]any)
		if to == "stable.example.com/v2" {
			spec["bigness"] = spec["size"]
			delete(spec, "size")
		} else {
			spec["size"] = spec["bigness"]
			delete(spec, "bigness")
		}
		obj.APIVersion = to
		return nil
	}
	thing := apiserver.Kind{Group: "stable.example.com", Kind: "Thing", Resource: "things", Namespaced: true,
		New: func() meta.Object { return &meta.Unstructured{} }, Convert: convert,
		Versions: []apiserver.KindVersion{{Name: "v1", Storage: true}, {Name: "v2"}}}
	// The matcher names v2 for every request, as the shared matcher does
	// for a rule on v2 under matchPolicy Equivalent.
	inV2 := func(_ context.Context, a *kadm.Request, _ *arv1.MatchResources, _ func(context.Context, string) (map[string]string, bool, error)) (bool, string, error) {
		return a.Resource.Resource == "things", "v2", nil
	}
	p, err := celadm.NewMutating(celadm.Options{Match: inV2})
	if err != nil {
		t.Fatal(err)
	}
	srv := apiserver.New(apiserver.Options{MutatingAdmission: []apiserver.AdmissionFunc{p.Mutate}})
	srv.Register(thing).Register(corev1.NamespaceKind())
	for _, k := range mutatingPolicyKinds() {
		srv.Register(k)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	p.Start(srv)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Close)
	s := &testServer{t: t, url: ts.URL}
	s.mustCreate("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"am-mut"}}`)
	s.mustCreate(mPoliciesPath, `{"metadata":{"name":"p"},"spec":{"failurePolicy":"Fail","reinvocationPolicy":"Never",
		"matchConstraints":{"resourceRules":[{"apiGroups":["stable.example.com"],"apiVersions":["v2"],"operations":["CREATE"],"resources":["things"]}]},
		"mutations":[`+applyConfig(`Object{spec: Object.spec{bigness: object.spec.bigness + '+' + object.apiVersion}}`)+`]}}`)
	s.mustCreate(mBindingsPath, `{"metadata":{"name":"b"},"spec":{"policyName":"p"}}`)
	r := s.do("POST", "/apis/stable.example.com/v1/namespaces/am-mut/things", `{"apiVersion":"stable.example.com/v1","kind":"Thing","metadata":{"name":"a"},"spec":{"size":"L"}}`)
	got := resultOf(r)
	want := result{Outcome: outcome{Code: 201}, Spec: map[string]any{"size": "L+stable.example.com/v2"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s\n%s", d, r.body)
	}
}
