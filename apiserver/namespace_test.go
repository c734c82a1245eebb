package apiserver_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/kapi-dev/kapi/kinds/corev1"
)

func decodeNamespace(t *testing.T, r response) corev1.Namespace {
	t.Helper()
	var ns corev1.Namespace
	if err := json.Unmarshal(r.body, &ns); err != nil {
		t.Fatalf("%v: %s", err, r.body)
	}
	return ns
}

// TestNamespaceKindHooks serves core Namespaces next to ConfigMaps: the
// two share /api/v1/namespaces/{name}/..., a namespace is created Active
// with the kubernetes finalizer that only /finalize removes, and a
// deletion marks it Terminating until that finalizer goes.
func TestNamespaceKindHooks(t *testing.T) {
	ts := startWith(t, corev1.NamespaceKind(), corev1.ConfigMapKind())
	const nsPath = "/api/v1/namespaces"
	r := do(t, ts.Server, "POST", nsPath, "application/json", `{"metadata":{"name":"team"},"spec":{"finalizers":[]},"status":{"phase":"Terminating"}}`)
	ns := decodeNamespace(t, r)
	if r.code != http.StatusCreated || ns.Status.Phase != "Active" || len(ns.Spec.Finalizers) != 1 {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	if r := do(t, ts.Server, "POST", nsPath+"/team/configmaps", "application/json", `{"metadata":{"name":"c"}}`); r.code != http.StatusCreated {
		t.Fatalf("configmap in the namespace: %d %s", r.code, r.body)
	}
	if r := do(t, ts.Server, "GET", nsPath+"/team/configmaps/c", "", ""); r.code != http.StatusOK {
		t.Fatalf("get configmap: %d %s", r.code, r.body)
	}
	if r := do(t, ts.Server, "GET", nsPath+"/team/status", "", ""); r.code != http.StatusOK || decodeNamespace(t, r).Name != "team" {
		t.Fatalf("get status: %d %s", r.code, r.body)
	}
	// A plain update cannot drop spec.finalizers.
	r = do(t, ts.Server, "PATCH", nsPath+"/team", "application/merge-patch+json", `{"spec":{"finalizers":null},"metadata":{"labels":{"a":"b"}}}`)
	if ns := decodeNamespace(t, r); r.code != http.StatusOK || len(ns.Spec.Finalizers) != 1 || ns.Labels["a"] != "b" {
		t.Fatalf("patch: %d %s", r.code, r.body)
	}
	if r := do(t, ts.Server, "GET", nsPath+"/team/finalize", "", ""); r.code != http.StatusMethodNotAllowed {
		t.Errorf("GET finalize: %d %s", r.code, r.body)
	}
	r = do(t, ts.Server, "DELETE", nsPath+"/team", "", "")
	ns = decodeNamespace(t, r)
	if r.code != http.StatusOK || ns.Status.Phase != "Terminating" || ns.DeletionTimestamp == nil {
		t.Fatalf("delete: %d %s", r.code, r.body)
	}
	// A second delete while the finalizer remains changes nothing and is
	// answered with the namespace, as kube-apiserver answers it.
	r = do(t, ts.Server, "DELETE", nsPath+"/team", "", "")
	if again := decodeNamespace(t, r); r.code != http.StatusOK || again.ResourceVersion != ns.ResourceVersion || again.Status.Phase != "Terminating" {
		t.Fatalf("second delete: %d %s", r.code, r.body)
	}
	ns = decodeNamespace(t, do(t, ts.Server, "GET", nsPath+"/team", "", ""))
	ns.Spec.Finalizers = nil
	body, _ := json.Marshal(ns)
	if r := do(t, ts.Server, "PUT", nsPath+"/team/finalize", "application/json", string(body)); r.code != http.StatusOK {
		t.Fatalf("finalize: %d %s", r.code, r.body)
	}
	if r := do(t, ts.Server, "GET", nsPath+"/team", "", ""); r.code != http.StatusNotFound {
		t.Errorf("finalized namespace still there: %d %s", r.code, r.body)
	}
}

// TestNamespaceDeletedWithoutFinalizers: a namespace finalized before it
// is deleted is only marked Terminating by its first delete, as
// kube-apiserver marks it, and goes on the second, answered with the
// namespace as it was deleted.
func TestNamespaceDeletedWithoutFinalizers(t *testing.T) {
	ts := startWith(t, corev1.NamespaceKind())
	ns := decodeNamespace(t, do(t, ts.Server, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"quick"}}`))
	ns.Spec.Finalizers = nil
	body, _ := json.Marshal(ns)
	if r := do(t, ts.Server, "PUT", "/api/v1/namespaces/quick/finalize", "application/json", string(body)); r.code != http.StatusOK {
		t.Fatalf("finalize: %d %s", r.code, r.body)
	}
	r := do(t, ts.Server, "DELETE", "/api/v1/namespaces/quick", "", "")
	marked := decodeNamespace(t, r)
	if r.code != http.StatusOK || marked.Kind != "Namespace" || marked.Status.Phase != "Terminating" || marked.DeletionTimestamp == nil {
		t.Fatalf("first delete: %d %s", r.code, r.body)
	}
	if r := do(t, ts.Server, "GET", "/api/v1/namespaces/quick", "", ""); r.code != http.StatusOK {
		t.Fatalf("gone after the first delete: %d", r.code)
	}
	r = do(t, ts.Server, "DELETE", "/api/v1/namespaces/quick", "", "")
	gone := decodeNamespace(t, r)
	if r.code != http.StatusOK || gone.Kind != "Namespace" || gone.UID != marked.UID || rv(gone.ResourceVersion) <= rv(marked.ResourceVersion) {
		t.Fatalf("second delete: %d %s", r.code, r.body)
	}
	if r := do(t, ts.Server, "GET", "/api/v1/namespaces/quick", "", ""); r.code != http.StatusNotFound {
		t.Errorf("still there: %d", r.code)
	}
}

// TestCoreDiscoveryListsV1: /api lists v1 once a core kind is served, and
// namespaces/finalize is a subresource with update only.
func TestCoreDiscoveryListsV1(t *testing.T) {
	ts := startWith(t, corev1.Kinds()...)
	var versions struct{ Versions []string }
	if err := json.Unmarshal(do(t, ts.Server, "GET", "/api", "", "").body, &versions); err != nil || len(versions.Versions) != 1 || versions.Versions[0] != "v1" {
		t.Fatalf("/api versions %v (%v)", versions.Versions, err)
	}
	var rl struct {
		Resources []struct {
			Name  string
			Verbs []string
		}
	}
	if err := json.Unmarshal(do(t, ts.Server, "GET", "/api/v1", "", "").body, &rl); err != nil {
		t.Fatal(err)
	}
	found := map[string][]string{}
	for _, r := range rl.Resources {
		found[r.Name] = r.Verbs
	}
	for _, name := range []string{"namespaces", "namespaces/status", "namespaces/finalize", "configmaps", "secrets", "events", "serviceaccounts"} {
		if _, ok := found[name]; !ok {
			t.Errorf("%s missing from /api/v1: %v", name, found)
		}
	}
	if v := found["namespaces/finalize"]; len(v) != 1 || v[0] != "update" {
		t.Errorf("namespaces/finalize verbs %v", v)
	}
}

func rv(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
