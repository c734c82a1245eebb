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
