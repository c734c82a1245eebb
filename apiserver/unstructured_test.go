package apiserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// A kind defined at run time is served as meta.Unstructured.
func TestUnstructuredKind(t *testing.T) {
	ts := startWith(t, apiserver.Kind{
		Group: "dyn.example.com", Version: "v1alpha1", Kind: "Thing", Resource: "things", Namespaced: true,
		Subresources: apiserver.Subresources{Status: true},
		New:          func() meta.Object { return &meta.Unstructured{} },
	})
	path := "/apis/dyn.example.com/v1alpha1/namespaces/default/things"
	r := do(t, ts.Server, "POST", path, "application/json",
		`{"apiVersion":"dyn.example.com/v1alpha1","kind":"Thing","metadata":{"name":"t1"},"spec":{"size":3,"tags":["a"]},"status":{"ok":true}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("%d %s", r.code, r.body)
	}
	body := string(r.body)
	if !strings.Contains(body, `"spec":{"size":3,"tags":["a"]}`) || strings.Contains(body, `"status"`) || !strings.Contains(body, `"generation":1`) {
		t.Errorf("created: %s", body)
	}
	r = do(t, ts.Server, "PATCH", path+"/t1", "application/merge-patch+json", `{"spec":{"size":4}}`)
	if !strings.Contains(string(r.body), `"size":4`) || !strings.Contains(string(r.body), `"generation":2`) {
		t.Errorf("patched: %d %s", r.code, r.body)
	}
	r = do(t, ts.Server, "PATCH", path+"/t1/status", "application/merge-patch+json", `{"status":{"ok":true},"spec":{"size":9}}`)
	if !strings.Contains(string(r.body), `"status":{"ok":true}`) || !strings.Contains(string(r.body), `"size":4`) {
		t.Errorf("status patch: %d %s", r.code, r.body)
	}
	r = do(t, ts.Server, "POST", path, "application/json", `{"apiVersion":"dyn.example.com/v1alpha1","kind":"Other","metadata":{"name":"t2"}}`)
	if r.code != http.StatusBadRequest {
		t.Errorf("wrong kind: %d %s", r.code, r.body)
	}
	if r := do(t, ts.Server, "GET", path, "", ""); !strings.Contains(string(r.body), `"kind":"ThingList"`) || !strings.Contains(string(r.body), `"name":"t1"`) {
		t.Errorf("list: %s", r.body)
	}
}
