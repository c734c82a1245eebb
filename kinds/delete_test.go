package kinds_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBuiltinDeleteAnswers: kube-apiserver v1.37 answers the delete of a
// ServiceAccount (like a Namespace's) with the object as it was deleted,
// and those of the other built-in kinds with a Status of Success.
func TestBuiltinDeleteAnswers(t *testing.T) {
	ts := builtinServer(t)
	for _, c := range []struct {
		collection, name, body, want string
		query                        string
	}{
		{"/api/v1/namespaces/default/serviceaccounts", "sa", `{"metadata":{"name":"sa"}}`, "ServiceAccount", ""},
		// Removed at once, so 200 although the delete cascades.
		{"/api/v1/namespaces/default/serviceaccounts", "sa2", `{"metadata":{"name":"sa2"}}`, "ServiceAccount", "?orphanDependents=false"},
		{"/api/v1/namespaces/default/configmaps", "cm", `{"metadata":{"name":"cm"}}`, "Status", ""},
		{"/api/v1/namespaces/default/secrets", "s", `{"metadata":{"name":"s"}}`, "Status", ""},
		{"/apis/coordination.k8s.io/v1/namespaces/default/leases", "l", `{"metadata":{"name":"l"}}`, "Status", ""},
		{"/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", "r", `{"metadata":{"name":"r"}}`, "Status", ""},
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles", "cr", `{"metadata":{"name":"cr"}}`, "Status", ""},
	} {
		t.Run(c.collection+"/"+c.name+c.query, func(t *testing.T) {
			post(t, ts.URL+c.collection, c.body)
			got := deleteAnswer(t, ts.URL+c.collection+"/"+c.name+c.query)
			want := answer{Code: http.StatusOK, Kind: c.want, Name: c.name}
			if c.want == "Status" {
				want.Name = ""
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("DELETE answer (-want +got):\n%s", d)
			}
		})
	}
}

// answer is what matters of a DELETE's response here.
type answer struct {
	Code int
	Kind string
	Name string // metadata.name of an object answered
}

func deleteAnswer(t *testing.T, url string) answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodDelete, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var body struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("DELETE %s: %d %s", url, resp.StatusCode, b)
	}
	return answer{Code: resp.StatusCode, Kind: body.Kind, Name: body.Metadata.Name}
}
