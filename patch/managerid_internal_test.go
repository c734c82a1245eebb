package patch

import (
	"encoding/json"
	"testing"

	"github.com/kapi-dev/kapi/meta"
)

// TestManagerIDMatchesEncodingJSON wants the identifiers written by hand
// to be encoding/json's, escapes and left-out fields included.
func TestManagerIDMatchesEncodingJSON(t *testing.T) {
	tests := []meta.ManagedFieldsEntry{
		{Manager: "kubectl", Operation: meta.ManagedFieldsOperationUpdate, APIVersion: "stable.example.com/v1"},
		{Manager: "kubectl", Operation: meta.ManagedFieldsOperationApply, APIVersion: "stable.example.com/v1"},
		{Manager: "kubelet", Operation: meta.ManagedFieldsOperationUpdate, APIVersion: "v1", Subresource: "status"},
		{Manager: "Go-http-client/1.1", Operation: meta.ManagedFieldsOperationUpdate, APIVersion: "v1"},
		{Manager: "a&b", Operation: meta.ManagedFieldsOperationUpdate, APIVersion: "v1"},
		{Manager: "<a&b>", Operation: meta.ManagedFieldsOperationUpdate, APIVersion: "v1"},
		{Manager: `say "hi"\`, Operation: meta.ManagedFieldsOperationUpdate, APIVersion: "v1"},
		{Manager: "tab\there", Operation: meta.ManagedFieldsOperationUpdate, APIVersion: "v1"},
		{Manager: "élan\u2028", Operation: meta.ManagedFieldsOperationUpdate, APIVersion: "v1"},
		{Manager: "bad\xff", Operation: meta.ManagedFieldsOperationUpdate, APIVersion: "v1"},
		{Operation: meta.ManagedFieldsOperationUpdate, APIVersion: "v1"},
		{Manager: "m", Operation: meta.ManagedFieldsOperationUpdate, Subresource: "scale"},
		{},
	}
	for _, e := range tests {
		id := identifying(e)
		want, err := json.Marshal(&id)
		if err != nil {
			t.Fatal(err)
		}
		got, err := managerID(e)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("managerID(%+v) = %s, want %s", e, got, want)
		}
	}
}

// TestEncodeNamesEntriesByIdentifier wants encoded entries to carry the
// names their identifiers give back, as kube's field manager does: an
// invalid UTF-8 name comes back with replacement characters.
func TestEncodeNamesEntriesByIdentifier(t *testing.T) {
	tests := []struct{ manager, want string }{
		{"kubectl", "kubectl"},
		{"élan", "élan"},
		{"bad\xff", "bad\uFFFD"},
	}
	for _, tc := range tests {
		mg, err := decodeManaged([]meta.ManagedFieldsEntry{{Manager: tc.manager, Operation: meta.ManagedFieldsOperationUpdate,
			APIVersion: "v1", FieldsType: FieldsTypeV1, FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:a":{}}`)}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		out, err := mg.encode()
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 || out[0].Manager != tc.want {
			t.Errorf("manager %q encoded as %+v, want %q", tc.manager, out, tc.want)
		}
	}
}

// TestCreateNamesEntryByIdentifier wants a create's entry named as its
// identifier gives the name back, whichever path records it.
func TestCreateNamesEntryByIdentifier(t *testing.T) {
	m, err := NewFieldManager(nil, FieldManagerOptions{Version: "v1", Kind: "Thing"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ manager, want string }{
		{"", "unknown"},
		{"kubectl", "kubectl"},
		{"bad\xff", "bad\uFFFD"},
	}
	for _, tc := range tests {
		out, err := m.Update(nil, []byte(`{"apiVersion":"v1","kind":"Thing","metadata":{"name":"t"},"spec":{"a":1}}`), UpdateOptions{Manager: tc.manager})
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 || out[0].Manager != tc.want || string(out[0].FieldsV1.Raw) != `{"f:spec":{".":{},"f:a":{}}}` {
			t.Errorf("create by %q recorded %+v, want %q owning spec.a", tc.manager, out, tc.want)
		}
	}
}
