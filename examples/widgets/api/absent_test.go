package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/examples/widgets/api"
)

// TestWidgetWithoutSpec: a Widget written without a spec is stored and
// served without one, in both versions, with no managedFields entry (its
// manager owns nothing), and without a status until one is written; a
// spec sent empty gets replicas (count in v1beta1) 1, and a port without
// a protocol gets TCP, both in the manager's set: what kube-apiserver
// answers for the Widget custom resource.
func TestWidgetWithoutSpec(t *testing.T) {
	rules, err := cel.New(cel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := apiserver.New(apiserver.Options{RuleEngine: rules})
	if err := srv.Register(api.WidgetKind()).Err(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	const (
		v1      = "/apis/stable.example.com/v1/namespaces/default/widgets"
		v1beta1 = "/apis/stable.example.com/v1beta1/namespaces/default/widgets"
	)
	tests := []struct {
		name, path, body string
		wantV1, wantBeta string // spec, then fieldsV1 of the one entry, in v1 and v1beta1
	}{
		{name: "v1 without spec", path: v1, body: `{"metadata":{"name":"a"}}`},
		{name: "v1beta1 without spec", path: v1beta1, body: `{"metadata":{"name":"b"}}`},
		{name: "v1 with an empty spec", path: v1, body: `{"metadata":{"name":"c"},"spec":{}}`,
			wantV1:   `{"replicas":1} {"f:spec":{".":{},"f:replicas":{}}}`,
			wantBeta: `{"count":1} {"f:spec":{".":{},"f:replicas":{}}}`},
		{name: "v1beta1 with an empty spec", path: v1beta1, body: `{"metadata":{"name":"d"},"spec":{}}`,
			wantV1:   `{"replicas":1} {"f:spec":{".":{},"f:count":{}}}`,
			wantBeta: `{"count":1} {"f:spec":{".":{},"f:count":{}}}`},
		{name: "v1 with a port", path: v1, body: `{"metadata":{"name":"e"},"spec":{"ports":[{"name":"a","port":1}]}}`,
			wantV1: `{"replicas":1,"ports":[{"name":"a","port":1,"protocol":"TCP"}]} ` +
				`{"f:spec":{".":{},"f:ports":{".":{},"k:{\"name\":\"a\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{}}},"f:replicas":{}}}`,
			wantBeta: `{"count":1,"ports":[{"name":"a","port":1,"protocol":"TCP"}]} ` +
				`{"f:spec":{".":{},"f:ports":{".":{},"k:{\"name\":\"a\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{}}},"f:replicas":{}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if code, body := send(t, ts, "POST", tc.path, tc.body); code != http.StatusCreated {
				t.Fatalf("create: %d %s", code, body)
			}
			var name struct {
				Metadata struct{ Name string } `json:"metadata"`
			}
			if err := json.Unmarshal([]byte(tc.body), &name); err != nil {
				t.Fatal(err)
			}
			for _, served := range []struct{ path, want string }{{v1, tc.wantV1}, {v1beta1, tc.wantBeta}} {
				code, body := send(t, ts, "GET", served.path+"/"+name.Metadata.Name, "")
				if code != http.StatusOK {
					t.Fatalf("get: %d %s", code, body)
				}
				if diff := cmp.Diff(served.want, specAndFields(t, body)); diff != "" {
					t.Errorf("GET %s (-want +got):\n%s\n%s", served.path, diff, body)
				}
			}
		})
	}
}

// specAndFields is a Widget's spec and the fieldsV1 of its one
// managedFields entry, space-separated; "" when it has neither. A status
// or a second entry fails the test.
func specAndFields(t *testing.T, body []byte) string {
	t.Helper()
	var w struct {
		Metadata struct {
			ManagedFields []struct {
				FieldsV1 json.RawMessage `json:"fieldsV1"`
			} `json:"managedFields"`
		} `json:"metadata"`
		Spec   json.RawMessage `json:"spec"`
		Status json.RawMessage `json:"status"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	if w.Status != nil || len(w.Metadata.ManagedFields) > 1 {
		t.Errorf("a status or several entries: %s", body)
	}
	if w.Spec == nil && len(w.Metadata.ManagedFields) == 0 {
		return ""
	}
	out := string(w.Spec) + " "
	for _, e := range w.Metadata.ManagedFields {
		out += string(e.FieldsV1)
	}
	return out
}
