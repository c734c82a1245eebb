package apiserver_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// lamp is a typed kind whose spec and status are structs tagged
// omitzero, as the example Widget's: a Go value that leaves them out, as
// kube-apiserver stores a custom resource written without them.
type lamp struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            lampSpec   `json:"spec,omitzero"`
	Status          lampStatus `json:"status,omitzero"`
}

type lampSpec struct {
	Replicas *int32     `json:"replicas,omitempty" default:"1" minimum:"0"`
	Color    string     `json:"color,omitempty"`
	Ports    []lampPort `json:"ports,omitempty" listType:"map" listMapKey:"name" patchStrategy:"merge" patchMergeKey:"name"`
}

type lampPort struct {
	Name     string `json:"name"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol,omitempty" default:"\"TCP\""`
}

type lampStatus struct {
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
}

func lampKind() apiserver.Kind {
	return apiserver.Kind{Group: "stable.example.com", Version: "v1", Kind: "Lamp", Resource: "lamps",
		Namespaced: true, Subresources: apiserver.Subresources{Status: true},
		New: func() meta.Object { return &lamp{} }}
}

const lampsPath = "/apis/stable.example.com/v1/namespaces/default/lamps"

// lampOf is a Lamp's JSON with the given members after its metadata.
func lampOf(rest string) string {
	return `{"apiVersion":"stable.example.com/v1","kind":"Lamp","metadata":{"name":"l"}` + rest + `}`
}

// TestAbsentSpecStaysAbsent: a write that leaves the spec out stores no
// spec, and no managedFields entry for a manager that then owns nothing;
// a spec sent, even empty, is defaulted (replicas 1, a port's protocol
// TCP), and the defaults are the manager's; as kube-apiserver stores the
// custom resource, for every kind of write and body. Each case creates
// the lamp with before (none when empty), then writes.
func TestAbsentSpecStaysAbsent(t *testing.T) {
	const (
		mergePatch = "application/merge-patch+json"
		jsonPatch  = "application/json-patch+json"
		smPatch    = "application/strategic-merge-patch+json"
		apply      = "application/apply-patch+yaml"
		withSpec   = `,"spec":{"color":"red"}`
		replicas   = `{"f:spec":{".":{},"f:replicas":{}}}`
	)
	tests := []struct {
		name, before         string
		method, sub, ct      string
		body                 string
		wantSpec, wantStatus string   // "" when absent
		wantFields           []string // each managedFields entry's fieldsV1
	}{
		{name: "create without spec", method: "POST", ct: "application/json", body: lampOf("")},
		{name: "create with an empty spec", method: "POST", ct: "application/json", body: lampOf(`,"spec":{}`),
			wantSpec: `{"replicas":1}`, wantFields: []string{replicas}},
		{name: "create with a null spec", method: "POST", ct: "application/json", body: lampOf(`,"spec":null`)},
		{name: "create with a port", method: "POST", ct: "application/json", body: lampOf(`,"spec":{"ports":[{"name":"a","port":1}]}`),
			wantSpec:   `{"replicas":1,"ports":[{"name":"a","port":1,"protocol":"TCP"}]}`,
			wantFields: []string{`{"f:spec":{".":{},"f:ports":{".":{},"k:{\"name\":\"a\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{}}},"f:replicas":{}}}`}},
		{name: "create as YAML without spec", method: "POST", ct: "application/yaml",
			body: "apiVersion: stable.example.com/v1\nkind: Lamp\nmetadata:\n  name: l\n"},
		{name: "create as YAML with an empty spec", method: "POST", ct: "application/yaml",
			body: "apiVersion: stable.example.com/v1\nkind: Lamp\nmetadata:\n  name: l\nspec: {}\n", wantSpec: `{"replicas":1}`, wantFields: []string{replicas}},
		{name: "create with status only", method: "POST", ct: "application/json", body: lampOf(`,"status":{"readyReplicas":1}`)},
		{name: "update without spec", before: withSpec, method: "PUT", sub: "/l", ct: "application/json", body: lampOf("")},
		{name: "update with an empty spec, untracked", before: "", method: "PUT", sub: "/l", ct: "application/json",
			body: lampOf(`,"spec":{}`), wantSpec: `{"replicas":1}`},
		{name: "merge patch beside the spec", method: "PATCH", sub: "/l", ct: mergePatch, body: `{"metadata":{"labels":{"a":"b"}}}`},
		{name: "merge patch of an empty spec", method: "PATCH", sub: "/l", ct: mergePatch, body: `{"spec":{}}`, wantSpec: `{"replicas":1}`},
		{name: "merge patch removing the spec", before: withSpec, method: "PATCH", sub: "/l", ct: mergePatch, body: `{"spec":null}`},
		{name: "JSON patch adding an empty spec", method: "PATCH", sub: "/l", ct: jsonPatch,
			body: `[{"op":"add","path":"/spec","value":{}}]`, wantSpec: `{"replicas":1}`},
		{name: "JSON patch removing the spec", before: withSpec, method: "PATCH", sub: "/l", ct: jsonPatch, body: `[{"op":"remove","path":"/spec"}]`},
		{name: "strategic merge patch beside the spec", method: "PATCH", sub: "/l", ct: smPatch, body: `{"metadata":{"labels":{"a":"b"}}}`},
		{name: "strategic merge patch of an empty spec", method: "PATCH", sub: "/l", ct: smPatch, body: `{"spec":{}}`, wantSpec: `{"replicas":1}`},
		{name: "apply without spec", method: "PATCH", sub: "/l?fieldManager=m", ct: apply, body: lampOf("")},
		{name: "apply of an empty spec", method: "PATCH", sub: "/l?fieldManager=m", ct: apply, body: lampOf(`,"spec":{}`),
			wantSpec: `{"replicas":1}`, wantFields: []string{`{"f:spec":{}}`}},
		{name: "apply of a port", method: "PATCH", sub: "/l?fieldManager=m", ct: apply, body: lampOf(`,"spec":{"ports":[{"name":"a","port":1}]}`),
			wantSpec:   `{"replicas":1,"ports":[{"name":"a","port":1,"protocol":"TCP"}]}`,
			wantFields: []string{`{"f:spec":{"f:ports":{"k:{\"name\":\"a\"}":{".":{},"f:name":{},"f:port":{}}}}}`}},
		{name: "status update", method: "PUT", sub: "/l/status", ct: "application/json",
			body: lampOf(`,"spec":{},"status":{"readyReplicas":2}`), wantStatus: `{"readyReplicas":2}`},
		{name: "status merge patch removing the status", method: "PATCH", sub: "/l/status", ct: mergePatch, body: `{"status":null}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := serveKinds(t, apiserver.Options{}, lampKind())
			if tc.method != "POST" {
				if r := do(t, ts, "POST", lampsPath, "application/json", lampOf(tc.before)); r.code != http.StatusCreated {
					t.Fatalf("create: %d %s", r.code, r.body)
				}
			}
			r := do(t, ts, tc.method, lampsPath+tc.sub, tc.ct, tc.body)
			if r.code != http.StatusOK && r.code != http.StatusCreated {
				t.Fatalf("%s: %d %s", tc.method, r.code, r.body)
			}
			checkLamp(t, "answer", r.body, tc.wantSpec, tc.wantStatus, tc.wantFields)
			stored := do(t, ts, "GET", lampsPath+"/l", "", "")
			checkLamp(t, "stored", stored.body, tc.wantSpec, tc.wantStatus, tc.wantFields)
		})
	}
}

// checkLamp compares a Lamp's spec, status and managedFields with what
// is wanted ("" for a member that must be absent).
func checkLamp(t *testing.T, what string, body []byte, wantSpec, wantStatus string, wantFields []string) {
	t.Helper()
	var got struct {
		Metadata struct {
			ManagedFields []struct {
				FieldsV1 json.RawMessage `json:"fieldsV1"`
			} `json:"managedFields"`
		} `json:"metadata"`
		Spec   json.RawMessage `json:"spec"`
		Status json.RawMessage `json:"status"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%s: %v: %s", what, err, body)
	}
	var fields []string
	for _, e := range got.Metadata.ManagedFields {
		fields = append(fields, string(e.FieldsV1))
	}
	if diff := cmp.Diff([]string{wantSpec, wantStatus}, []string{string(got.Spec), string(got.Status)}); diff != "" {
		t.Errorf("%s spec and status (-want +got):\n%s\n%s", what, diff, body)
	}
	if diff := cmp.Diff(wantFields, fields); diff != "" {
		t.Errorf("%s managedFields (-want +got):\n%s", what, diff)
	}
}

// TestAbsentSpecCBOR: a CBOR body tells a spec sent empty from none.
func TestAbsentSpecCBOR(t *testing.T) {
	for _, tc := range []struct{ name, rest, wantSpec string }{
		{"without spec", "", ""},
		{"with an empty spec", `,"spec":{}`, `{"replicas":1}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := serveKinds(t, apiserver.Options{}, lampKind())
			r := doWith(t, ts, "POST", lampsPath, map[string]string{"Content-Type": "application/cbor"}, cborOf(t, lampOf(tc.rest)))
			if r.code != http.StatusCreated {
				t.Fatalf("create: %d %s", r.code, r.body)
			}
			var fields []string
			if tc.wantSpec != "" {
				fields = []string{`{"f:spec":{".":{},"f:replicas":{}}}`}
			}
			checkLamp(t, "answer", r.body, tc.wantSpec, "", fields)
		})
	}
}
