package kinds_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuiltinGeneration: kube-apiserver's strategies of the built-in
// kinds without a spec keep no metadata.generation (a create stores none,
// a change stores none), while a CustomResourceDefinition starts at 1 and
// counts the changes of its spec.
func TestBuiltinGeneration(t *testing.T) {
	ts := builtinServer(t)
	crd := `{"metadata":{"name":"things.tables.example.com"},"spec":{"group":"tables.example.com","scope":"Namespaced",
		"names":{"plural":"things","kind":"Thing"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`
	for _, c := range []struct {
		collection, name, body, patch string
		want                          []any // the generation after the create and after the patch
	}{
		{"/api/v1/namespaces", "tables-ns", `{"metadata":{"name":"tables-ns"}}`, `{"metadata":{"labels":{"a":"b"}}}`, []any{nil, nil}},
		{"/api/v1/namespaces/default/configmaps", "cm", `{"metadata":{"name":"cm"},"data":{"a":"b"}}`, `{"data":{"a":"c"}}`, []any{nil, nil}},
		{"/api/v1/namespaces/default/secrets", "s", `{"metadata":{"name":"s"},"data":{"a":"Yg=="}}`, `{"data":{"a":"Yw=="}}`, []any{nil, nil}},
		{"/api/v1/namespaces/default/serviceaccounts", "sa", `{"metadata":{"name":"sa"}}`, `{"automountServiceAccountToken":false}`, []any{nil, nil}},
		{"/apis/coordination.k8s.io/v1/namespaces/default/leases", "l", `{"metadata":{"name":"l"}}`, `{"spec":{"holderIdentity":"me"}}`, []any{nil, nil}},
		{"/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", "r", `{"metadata":{"name":"r"}}`,
			`{"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}`, []any{nil, nil}},
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles", "cr", `{"metadata":{"name":"cr"}}`,
			`{"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}`, []any{nil, nil}},
		{"/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", "rb",
			`{"metadata":{"name":"rb"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"}}`,
			`{"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"alice"}]}`, []any{nil, nil}},
		{"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", "crb",
			`{"metadata":{"name":"crb"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cr"}}`,
			`{"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"alice"}]}`, []any{nil, nil}},
		{"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "things.tables.example.com", crd,
			`{"spec":{"names":{"shortNames":["th"]}}}`, []any{1.0, 2.0}},
	} {
		t.Run(c.collection, func(t *testing.T) {
			post(t, ts.URL+c.collection, c.body)
			created := generationOf(t, "GET", ts.URL+c.collection+"/"+c.name, "")
			patched := generationOf(t, "PATCH", ts.URL+c.collection+"/"+c.name, c.patch)
			if d := cmp.Diff(c.want, []any{created, patched}); d != "" {
				t.Errorf("generation after create and patch (-want +got):\n%s", d)
			}
		})
	}
}

// generationOf sends a request (a merge patch when there is a body) and
// returns the metadata.generation of the object it answers with.
func generationOf(t *testing.T, method, url, patch string) any {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(patch))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/merge-patch+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var obj struct {
		Metadata map[string]any `json:"metadata"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &obj) != nil {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, b)
	}
	return obj.Metadata["generation"]
}
