package apiserver

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/internal/jsonscan"
	"github.com/kapi-dev/kapi/meta"
)

// spliced is a typed kind whose strings may look like metadata.
type spliced struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            struct {
		Note string            `json:"note,omitempty"`
		Map  map[string]string `json:"map,omitempty"`
	} `json:"spec"`
}

// sortedMeta encodes its metadata as a map, keys sorted: managedFields
// are not its last member, so nothing may be spliced in.
type sortedMeta struct{ spliced }

func (s *sortedMeta) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(s.ObjectMeta)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{"apiVersion": s.APIVersion, "kind": s.Kind, "metadata": m, "spec": s.Spec})
}

func spliceResource(newObj func() meta.Object) *registry.Resource {
	r := &registry.Resource{Kind: Kind{Group: "g.example.com", Version: "v1", Kind: "Spliced", New: newObj}, APIVersion: "g.example.com/v1"}
	r.StorageVersion = r
	r.SetSpliceManagedFields()
	return r
}

// TestStoredValueSplicesManagedFields checks that the stored value made
// from an encoding without managedFields, with them put in, is the
// object's stored value encoded whole, and the form made from it the
// object's JSON form, for objects with no entries, with
// several, and with strings that read like the metadata around them.
func TestStoredValueSplicesManagedFields(t *testing.T) {
	r := spliceResource(func() meta.Object { return &spliced{} })
	if !r.SpliceManagedFields {
		t.Fatal("a typed kind stored as JSON does not splice managedFields")
	}
	now := meta.NewTime(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	entry := func(manager, raw, sub string) meta.ManagedFieldsEntry {
		return meta.ManagedFieldsEntry{Manager: manager, Operation: meta.ManagedFieldsOperationUpdate, APIVersion: "g.example.com/v1",
			Time: &now, FieldsType: "FieldsV1", FieldsV1: &meta.FieldsV1{Raw: []byte(raw)}, Subresource: sub}
	}
	cases := []struct {
		name string
		obj  func(*spliced)
	}{
		{"no entries", func(o *spliced) { o.Name = "a" }},
		{"empty entries", func(o *spliced) { o.Name, o.ManagedFields = "a", []meta.ManagedFieldsEntry{} }},
		{"one entry", func(o *spliced) {
			o.Name, o.UID, o.ResourceVersion = "a", "u", "12"
			o.ManagedFields = []meta.ManagedFieldsEntry{entry("m", `{"f:spec":{"f:note":{}}}`, "")}
		}},
		{"entries and every other member", func(o *spliced) {
			o.Name, o.Namespace, o.Generation = "a", "ns", 3
			o.Labels, o.Annotations = map[string]string{"l": "<&>"}, map[string]string{"a": `"metadata":{"x":1}`}
			o.Finalizers = []string{"f/g"}
			o.ManagedFields = []meta.ManagedFieldsEntry{entry("m", `{"f:spec":{}}`, ""), entry("s<>", `{"f:status":{}}`, "status")}
		}},
		{"spec that reads like metadata", func(o *spliced) {
			o.Name = `"metadata":{"managedFields":[]}`
			o.Spec.Note = `},"metadata":{`
			o.Spec.Map = map[string]string{"metadata": "{"}
			o.ManagedFields = []meta.ManagedFieldsEntry{entry("m", `{"f:spec":{"f:note":{}}}`, "")}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := &spliced{TypeMeta: meta.TypeMeta{APIVersion: "g.example.com/v1", Kind: "Spliced"}}
			tc.obj(obj)
			want, err := r.Encode(obj)
			if err != nil {
				t.Fatal(err)
			}
			form, pre, err := r.FormWithoutManagedFields(obj)
			if err != nil {
				t.Fatal(err)
			}
			if wantForm, err := r.JSONWithoutManagedFields(obj); err != nil {
				t.Errorf("jsonWithoutManagedFields: %v", err)
			} else if diff := cmp.Diff(wantForm, form); diff != "" {
				t.Errorf("form (-want +got):\n%s", diff)
			}
			got, err := r.StoredValue(obj, pre, registry.SpliceHints{})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("stored value\n%s\nwant\n%s", got, want)
			}
			// With where the encoding's metadata is, when the kind's
			// plan wrote it, rather than looked for.
			pre, hints, err := r.EncodeForSplice(obj)
			if err != nil {
				t.Fatal(err)
			}
			start, end, _ := jsonscan.ObjectField(pre, "metadata")
			if known := hints.MetaEnd >= 0; known && (hints.MetaStart != start || hints.MetaEnd != end) {
				t.Errorf("metadata at [%d, %d), want [%d, %d) in %s", hints.MetaStart, hints.MetaEnd, start, end, pre)
			}
			if got, err := r.StoredValue(obj, pre, hints); err != nil || !bytes.Equal(got, want) {
				t.Errorf("stored value with hints\n%s (%v)\nwant\n%s", got, err, want)
			}
		})
	}
}

// TestSpliceManagedFieldsNeedsThemLast checks that a kind whose metadata
// does not end with managedFields is encoded whole.
func TestSpliceManagedFieldsNeedsThemLast(t *testing.T) {
	if r := spliceResource(func() meta.Object { return &sortedMeta{} }); r.SpliceManagedFields {
		t.Error("a kind encoding metadata keys sorted splices managedFields")
	}
}

// TestSpliceManagedFieldsIntoEmptyMetadata covers the metadata with no
// member before managedFields, and values without metadata.
func TestSpliceManagedFieldsIntoEmptyMetadata(t *testing.T) {
	entries := []meta.ManagedFieldsEntry{{Manager: "m"}}
	got, err := registry.SpliceManagedFields([]byte(`{"metadata":{},"spec":{}}`), entries, registry.SpliceHints{})
	if want := `{"metadata":{"managedFields":[{"manager":"m"}]},"spec":{}}`; err != nil || string(got) != want {
		t.Errorf("got %s, %v; want %s", got, err, want)
	}
	if _, err := registry.SpliceManagedFields([]byte(`{"spec":{}}`), entries, registry.SpliceHints{}); err == nil {
		t.Error("spliced managedFields into a value without metadata")
	}
}

// splicedVersions returns the resources of the Spliced kind served in
// v1, its storage version, and v2.
func splicedVersions(t *testing.T) (stor, other *registry.Resource) {
	t.Helper()
	k := Kind{Group: "g.example.com", Kind: "Spliced", Resource: "spliceds",
		New:      func() meta.Object { return &spliced{} },
		Versions: []KindVersion{{Name: "v1", Storage: true}, {Name: "v2"}}}
	kinds, _, vs, err := registry.ExpandVersions(k)
	if err != nil {
		t.Fatal(err)
	}
	stor = &registry.Resource{Kind: kinds[0], APIVersion: kinds[0].GroupVersion().String(), Versions: vs}
	stor.StorageVersion = stor
	other = &registry.Resource{Kind: kinds[1], APIVersion: kinds[1].GroupVersion().String(), Versions: vs, StorageVersion: stor}
	return stor, other
}

// TestSpliceManagedFieldsOfStorageVersion checks that the storage version
// of a kind served in several versions splices managedFields, and that
// the other version, whose objects are converted to be stored, does not.
func TestSpliceManagedFieldsOfStorageVersion(t *testing.T) {
	storage, other := splicedVersions(t)
	storage.SetSpliceManagedFields()
	other.SetSpliceManagedFields()
	if !storage.SpliceManagedFields {
		t.Error("the storage version does not splice managedFields")
	}
	if other.SpliceManagedFields {
		t.Error("a version converted to be stored splices managedFields")
	}
}
