package patch

import (
	"testing"
	"time"

	"github.com/kapi-dev/kapi/meta"
)

// TestCreateAllocatesOnlyItsEntry: recording a create that carries no
// managedFields costs the allocations of writing its entry and nothing
// more (no entries to start from, no empty object to compare with).
func TestCreateAllocatesOnlyItsEntry(t *testing.T) {
	m, err := NewFieldManager(nil, FieldManagerOptions{Group: "stable.example.com", Version: "v1", Kind: "Widget",
		Now: func() time.Time { return time.Unix(1, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "labels": map[string]any{"a": "1"}},
		"spec":     map[string]any{"color": "blue", "replicas": int64(1)},
	}
	if _, ok := m.createdEntries(obj, nil, "creator", ""); !ok {
		t.Fatal("the create's entry is not written straight from the object")
	}
	entry := testing.AllocsPerRun(20, func() { m.createdEntries(obj, nil, "creator", "") })
	for _, tc := range []struct {
		name string
		opts UpdateOptions
	}{
		{"no entries", UpdateOptions{Manager: "creator"}},
		{"empty entries sent", UpdateOptions{Manager: "creator", NewManaged: []meta.ManagedFieldsEntry{}}},
	} {
		var got []meta.ManagedFieldsEntry
		create := testing.AllocsPerRun(20, func() {
			got, err = m.UpdateObject(nil, obj, tc.opts)
		})
		if err != nil || len(got) != 1 || got[0].Manager != "creator" {
			t.Fatalf("%s: entries %+v, error %v", tc.name, got, err)
		}
		if create > entry {
			t.Errorf("%s: recording a create allocates %v times, writing its entry %v", tc.name, create, entry)
		}
	}
}
