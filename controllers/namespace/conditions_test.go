package namespace_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
)

// thingKind is a namespaced kind served in two versions, as the
// reference serves Widgets in v1 and v1beta1.
func thingKind() apiserver.Kind {
	return apiserver.Kind{Group: "stable.example.com", Kind: "Thing", Resource: "things", Namespaced: true,
		New:      func() meta.Object { return &meta.Unstructured{} },
		Versions: []apiserver.KindVersion{{Name: "v1", Storage: true}, {Name: "v1beta1"}}}
}

// TestDeletionConditions: a terminating namespace that holds an object
// with a finalizer carries kube's five deletion conditions, with its
// reasons and messages, next to the conditions it had; the object is
// counted once although its kind is served in two versions. Once the
// finalizer goes, so does the namespace.
func TestDeletionConditions(t *testing.T) {
	e := start(t, true, thingKind())
	e.do("POST", "/api/v1/namespaces", `{"metadata":{"name":"held"}}`)
	if r := e.do("POST", "/apis/stable.example.com/v1/namespaces/held/things",
		`{"apiVersion":"stable.example.com/v1","kind":"Thing","metadata":{"name":"w","finalizers":["example.com/hold"]}}`); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	if r := e.patch("/api/v1/namespaces/held/status", `{"status":{"conditions":[{"type":"Example","status":"True","reason":"Kept","message":"not the controller's"}]}}`); r.code != http.StatusOK {
		t.Fatalf("status patch: %d %s", r.code, r.body)
	}
	if r := e.do("DELETE", "/api/v1/namespaces/held", ""); r.code != http.StatusOK {
		t.Fatalf("delete: %d %s", r.code, r.body)
	}
	want := []corev1.NamespaceCondition{
		{Type: "Example", Status: "True", Reason: "Kept", Message: "not the controller's"},
		{Type: "NamespaceDeletionDiscoveryFailure", Status: "False", Reason: "ResourcesDiscovered", Message: "All resources successfully discovered"},
		{Type: "NamespaceDeletionGroupVersionParsingFailure", Status: "False", Reason: "ParsedGroupVersions", Message: "All legacy kube types successfully parsed"},
		{Type: "NamespaceDeletionContentFailure", Status: "False", Reason: "ContentDeleted", Message: "All content successfully deleted, may be waiting on finalization"},
		{Type: "NamespaceContentRemaining", Status: "True", Reason: "SomeResourcesRemain", Message: "Some resources are remaining: things.stable.example.com has 1 resource instances"},
		{Type: "NamespaceFinalizersRemaining", Status: "True", Reason: "SomeFinalizersRemain", Message: "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"},
	}
	var got []corev1.NamespaceCondition
	e.eventually("the deletion conditions", func() bool {
		ns, _ := e.namespace("held")
		got = withoutTimes(ns.Status.Conditions)
		return len(got) == len(want)
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
	if ns, _ := e.namespace("held"); ns.Status.Phase != "Terminating" {
		t.Errorf("namespace while held: %+v %+v", ns.Spec, ns.Status.Phase)
	} else if diff := cmp.Diff([]string{"kubernetes"}, ns.Spec.Finalizers); diff != "" {
		t.Errorf("finalizers while held (-want +got):\n%s", diff)
	}
	if r := e.patch("/apis/stable.example.com/v1/namespaces/held/things/w", `{"metadata":{"finalizers":null}}`); r.code != http.StatusOK {
		t.Fatalf("remove finalizer: %d %s", r.code, r.body)
	}
	e.eventually("the namespace to go", func() bool { _, code := e.namespace("held"); return code == http.StatusNotFound })
}

func withoutTimes(conds []corev1.NamespaceCondition) []corev1.NamespaceCondition {
	out := make([]corev1.NamespaceCondition, len(conds))
	for i, c := range conds {
		c.LastTransitionTime = meta.Time{}
		out[i] = c
	}
	return out
}

func (e *env) patch(path, body string) reply {
	e.t.Helper()
	req, _ := http.NewRequest("PATCH", "http://kapi"+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/merge-patch+json")
	rec := &recorder{header: http.Header{}, code: 200}
	e.srv.ServeHTTP(rec, req)
	return reply{rec.code, rec.body.Bytes()}
}
