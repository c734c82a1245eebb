package corev1_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/corev1"
)

// TestOpenAPIServesCoreV1 checks that a server with every core kind
// publishes the core/v1 OpenAPI document: kubectl validates manifests
// against it, and without it `kubectl apply -f configmap.yaml` fails
// with "the server could not find the requested resource".
func TestOpenAPIServesCoreV1(t *testing.T) {
	s := apiserver.New(apiserver.Options{})
	for _, k := range corev1.Kinds() {
		s.Register(k)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()

	var index struct {
		Paths map[string]json.RawMessage `json:"paths"`
	}
	getJSON(t, ts.URL+"/openapi/v3", &index)
	if _, ok := index.Paths["api/v1"]; !ok {
		t.Fatalf("the OpenAPI index lacks api/v1: %v", index.Paths)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	getJSON(t, ts.URL+"/openapi/v3/api/v1", &doc)
	for _, p := range []string{
		"/api/v1/namespaces/{namespace}/configmaps/{name}",
		"/api/v1/namespaces/{namespace}/secrets/{name}",
		"/api/v1/namespaces/{namespace}/events/{name}",
		"/api/v1/namespaces/{name}",
	} {
		if doc.Paths[p] == nil {
			t.Errorf("core/v1 document lacks %s", p)
		}
	}
	finalize := doc.Paths["/api/v1/namespaces/{name}/finalize"]
	if finalize["put"] == nil || finalize["get"] != nil || finalize["patch"] != nil {
		t.Errorf("namespace finalize: want PUT alone, got %v", keys(finalize))
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
