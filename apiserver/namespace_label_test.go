package apiserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/kinds/corev1"
)

const nameLabel = "kubernetes.io/metadata.name"

// TestNamespaceNameLabel: every write of a Namespace stores the label
// kubernetes.io/metadata.name with its name, as kube-apiserver does,
// whatever the request sets or removes: create (named, generateName,
// dry run), update, each patch type, apply, and the status subresource.
func TestNamespaceNameLabel(t *testing.T) {
	ts := startWith(t, corev1.NamespaceKind())
	const nsPath = "/api/v1/namespaces"
	const (
		merge = "application/merge-patch+json"
		jsonp = "application/json-patch+json"
		smp   = "application/strategic-merge-patch+json"
		apply = "application/apply-patch+yaml"
	)
	if r := do(t, ts.Server, "POST", nsPath, "application/json", `{"metadata":{"name":"team","labels":{"a":"b","kubernetes.io/metadata.name":"other"}}}`); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	for _, tc := range []struct {
		name, method, path, contentType, body string
		want                                  map[string]string
	}{
		{"update without it", "PUT", "/team", "application/json", `{"metadata":{"name":"team","labels":{"a":"c"}}}`, map[string]string{"a": "c"}},
		{"update without labels", "PUT", "/team", "application/json", `{"metadata":{"name":"team"}}`, nil},
		{"merge patch removing it", "PATCH", "/team", merge, `{"metadata":{"labels":{"kubernetes.io/metadata.name":null,"a":"d"}}}`, map[string]string{"a": "d"}},
		{"JSON patch removing it", "PATCH", "/team", jsonp, `[{"op":"remove","path":"/metadata/labels/kubernetes.io~1metadata.name"}]`, map[string]string{"a": "d"}},
		{"JSON patch removing the labels", "PATCH", "/team", jsonp, `[{"op":"remove","path":"/metadata/labels"}]`, nil},
		{"strategic merge patch changing it", "PATCH", "/team", smp, `{"metadata":{"labels":{"kubernetes.io/metadata.name":"x","a":"e"}}}`, map[string]string{"a": "e"}},
		{"apply changing it, forced", "PATCH", "/team?fieldManager=tool&force=true", apply, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team","labels":{"kubernetes.io/metadata.name":"y"}}}`, map[string]string{"a": "e"}},
		{"dry-run update removing it", "PATCH", "/team?dryRun=All", merge, `{"metadata":{"labels":{"kubernetes.io/metadata.name":null}}}`, map[string]string{"a": "e"}},
		{"status update without it", "PUT", "/team/status", "application/json", `{"metadata":{"name":"team","labels":{"a":"f"}},"status":{"phase":"Active"}}`, map[string]string{"a": "f"}},
		{"status merge patch removing it", "PATCH", "/team/status", merge, `{"metadata":{"labels":{"kubernetes.io/metadata.name":null}}}`, map[string]string{"a": "f"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, ts.Server, tc.method, nsPath+tc.path, tc.contentType, tc.body)
			if r.code != http.StatusOK {
				t.Fatalf("%d %s", r.code, r.body)
			}
			want := map[string]string{nameLabel: "team"}
			for k, v := range tc.want {
				want[k] = v
			}
			if diff := cmp.Diff(want, decodeNamespace(t, r).Labels); diff != "" {
				t.Errorf("answered labels (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, decodeNamespace(t, do(t, ts.Server, "GET", nsPath+"/team", "", "")).Labels); diff != "" {
				t.Errorf("stored labels (-want +got):\n%s", diff)
			}
		})
	}
	for _, dry := range []string{"", "?dryRun=All"} {
		r := do(t, ts.Server, "POST", nsPath+dry, "application/json", `{"metadata":{"generateName":"gen-"}}`)
		ns := decodeNamespace(t, r)
		if r.code != http.StatusCreated || !strings.HasPrefix(ns.Name, "gen-") {
			t.Errorf("create%s with generateName: %d %s", dry, r.code, r.body)
		} else if diff := cmp.Diff(map[string]string{nameLabel: ns.Name}, ns.Labels); diff != "" {
			t.Errorf("create%s with generateName: labels (-want +got):\n%s", dry, diff)
		}
	}
	r := do(t, ts.Server, "PATCH", nsPath+"/applied?fieldManager=tool", apply, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"applied"}}`)
	if ns := decodeNamespace(t, r); r.code != http.StatusCreated {
		t.Errorf("create by apply: %d %s", r.code, r.body)
	} else if diff := cmp.Diff(map[string]string{nameLabel: "applied"}, ns.Labels); diff != "" {
		t.Errorf("create by apply: labels (-want +got):\n%s", diff)
	}
}

// TestNamespaceStatusKeepsMetadata: a write to namespaces/status keeps
// the request's labels, annotations and finalizers, as kube's namespace
// status strategy does, and changes nothing of spec.
func TestNamespaceStatusKeepsMetadata(t *testing.T) {
	ts := startWith(t, corev1.NamespaceKind())
	const path = "/api/v1/namespaces/team"
	if r := do(t, ts.Server, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"team"}}`); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	r := do(t, ts.Server, "PATCH", path+"/status", "application/merge-patch+json", `{"metadata":{"annotations":{"note":"merged"}},"spec":{"finalizers":null}}`)
	ns := decodeNamespace(t, r)
	if r.code != http.StatusOK || ns.Annotations["note"] != "merged" {
		t.Fatalf("merge patch of status: %d %s", r.code, r.body)
	}
	if diff := cmp.Diff([]string{"kubernetes"}, ns.Spec.Finalizers); diff != "" {
		t.Fatalf("merge patch of status: finalizers (-want +got):\n%s", diff)
	}
	r = do(t, ts.Server, "PUT", path+"/status", "application/json",
		`{"metadata":{"name":"team","labels":{"team":"a"},"annotations":{"note":"put"},"finalizers":["example.com/keep"]},"spec":{"finalizers":["other"]},"status":{"phase":"Active"}}`)
	if r.code != http.StatusOK {
		t.Fatalf("put status: %d %s", r.code, r.body)
	}
	ns = decodeNamespace(t, do(t, ts.Server, "GET", path, "", ""))
	want := corev1.Namespace{}
	want.Labels = map[string]string{"team": "a", nameLabel: "team"}
	want.Annotations = map[string]string{"note": "put"}
	want.Finalizers = []string{"example.com/keep"}
	want.Spec.Finalizers = []string{"kubernetes"}
	got := corev1.Namespace{Spec: ns.Spec}
	got.Labels, got.Annotations, got.Finalizers = ns.Labels, ns.Annotations, ns.Finalizers
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after PUT of status (-want +got):\n%s", diff)
	}
}

// managed lists a Namespace's managedFields as "manager operation
// subresource fieldsV1", to compare with what kube-apiserver records.
func managed(ns corev1.Namespace) []string {
	var out []string
	for _, e := range ns.ManagedFields {
		s := e.Manager + " " + string(e.Operation) + " " + e.Subresource + " "
		if e.FieldsV1 != nil {
			s += string(e.FieldsV1.Raw)
		}
		out = append(out, s)
	}
	return out
}

// TestNamespaceManagedFields: a Namespace's writes record in
// managedFields what kube-apiserver records: the name label, set by
// defaulting, is the creator's when the name is given and nobody's when
// generated; the kubernetes finalizer, which the server adds, is nobody's;
// an update claiming spec.finalizers owns them though they do not
// change. A Namespace has no metadata.generation.
func TestNamespaceManagedFields(t *testing.T) {
	ts := startWith(t, corev1.NamespaceKind())
	send := func(method, path, ua, body string) corev1.Namespace {
		t.Helper()
		r := send(t, ts.URL+path, method, map[string]string{"Content-Type": "application/json", "User-Agent": ua}, []byte(body))
		if r.code/100 != 2 {
			t.Fatalf("%s %s: %d %s", method, path, r.code, r.body)
		}
		return decodeNamespace(t, r)
	}
	ns := send("POST", "/api/v1/namespaces", "kubectl-create/v1.37", `{"metadata":{"name":"team","labels":{"x":"y"}}}`)
	want := []string{`kubectl-create Update  {"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/metadata.name":{},"f:x":{}}}}`}
	if diff := cmp.Diff(want, managed(ns)); diff != "" {
		t.Errorf("create: managedFields (-want +got):\n%s", diff)
	}
	if ns.Generation != 0 {
		t.Errorf("create: generation %d", ns.Generation)
	}
	ns = send("PUT", "/api/v1/namespaces/team", "kubectl-replace/v1.37", `{"metadata":{"name":"team","labels":{"a":"c"}},"spec":{"finalizers":["kubernetes","example.com/x"]}}`)
	want = []string{
		`kubectl-create Update  {"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/metadata.name":{}}}}`,
		`kubectl-replace Update  {"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{"f:finalizers":{}}}`,
	}
	if diff := cmp.Diff(want, managed(ns)); diff != "" {
		t.Errorf("update: managedFields (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"kubernetes"}, ns.Spec.Finalizers); diff != "" {
		t.Errorf("update: finalizers (-want +got):\n%s", diff)
	}
	if ns.Generation != 0 {
		t.Errorf("update: generation %d", ns.Generation)
	}
	ns = send("POST", "/api/v1/namespaces", "curl", `{"metadata":{"generateName":"gen-"}}`)
	want = []string{`curl Update  {"f:metadata":{"f:generateName":{}}}`}
	if diff := cmp.Diff(want, managed(ns)); diff != "" {
		t.Errorf("create with generateName: managedFields (-want +got):\n%s", diff)
	}
}

// TestNamespaceDeletionMarksTimestampOnly: deleting a Namespace sets its
// deletionTimestamp and Terminating phase only, as kube-apiserver's
// namespace store does: no deletionGracePeriodSeconds, no generation.
func TestNamespaceDeletionMarksTimestampOnly(t *testing.T) {
	ts := startWith(t, corev1.NamespaceKind())
	if r := do(t, ts.Server, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"team"}}`); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	r := do(t, ts.Server, "DELETE", "/api/v1/namespaces/team", "", "")
	ns := decodeNamespace(t, r)
	if r.code != http.StatusOK || ns.DeletionTimestamp == nil || ns.DeletionGracePeriodSeconds != nil || ns.Generation != 0 || ns.Status.Phase != "Terminating" {
		t.Errorf("delete: %d %s", r.code, r.body)
	}
}

// TestNamespaceFinalizeKeepsMetadata: a write to namespaces/finalize
// keeps the request's metadata and spec, as kube's namespace finalize
// strategy does, and none of its status.
func TestNamespaceFinalizeKeepsMetadata(t *testing.T) {
	ts := startWith(t, corev1.NamespaceKind())
	if r := do(t, ts.Server, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"team","labels":{"x":"y"}}}`); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	r := do(t, ts.Server, "PUT", "/api/v1/namespaces/team/finalize", "application/json",
		`{"metadata":{"name":"team","labels":{"f":"g"},"annotations":{"fin":"x"}},"spec":{"finalizers":["kubernetes","example.com/y"]},"status":{"phase":"Terminating"}}`)
	if r.code != http.StatusOK {
		t.Fatalf("finalize: %d %s", r.code, r.body)
	}
	ns := decodeNamespace(t, do(t, ts.Server, "GET", "/api/v1/namespaces/team", "", ""))
	if diff := cmp.Diff(map[string]string{"f": "g", nameLabel: "team"}, ns.Labels); diff != "" {
		t.Errorf("after finalize: labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"fin": "x"}, ns.Annotations); diff != "" {
		t.Errorf("after finalize: annotations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"kubernetes", "example.com/y"}, ns.Spec.Finalizers); diff != "" {
		t.Errorf("after finalize: finalizers (-want +got):\n%s", diff)
	}
	if ns.Status.Phase != "Active" {
		t.Errorf("after finalize: phase %q", ns.Status.Phase)
	}
}
