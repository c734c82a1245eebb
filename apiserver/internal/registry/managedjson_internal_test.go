package registry

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/meta"
)

func managedEntries() []meta.ManagedFieldsEntry {
	now := meta.NewTime(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	return []meta.ManagedFieldsEntry{
		{Manager: "kubectl-client-side-apply", Operation: meta.ManagedFieldsOperationUpdate, APIVersion: "g.example.com/v1",
			Time: &now, FieldsType: "FieldsV1", FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:spec":{".":{},"f:ports":{"k:{\"name\":\"a b\"}":{}}}}`)}},
		{Manager: "ctl", Operation: meta.ManagedFieldsOperationApply, APIVersion: "g.example.com/v1",
			Time: &now, FieldsType: "FieldsV1", FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:status":{}}`)}, Subresource: "status"},
	}
}

// TestMarshalManagedFieldsMatchesEncodingJSON checks that entries encode
// to encoding/json's bytes, or its error, whether they are written
// directly or left to it.
func TestMarshalManagedFieldsMatchesEncodingJSON(t *testing.T) {
	zero := meta.Time{}
	for _, tc := range []struct {
		name string
		edit func(e *meta.ManagedFieldsEntry)
	}{
		{"plain", func(*meta.ManagedFieldsEntry) {}},
		{"empty entry", func(e *meta.ManagedFieldsEntry) { *e = meta.ManagedFieldsEntry{} }},
		{"no time, no fields", func(e *meta.ManagedFieldsEntry) { e.Time, e.FieldsV1 = nil, nil }},
		{"zero time", func(e *meta.ManagedFieldsEntry) { e.Time = &zero }},
		{"nil raw", func(e *meta.ManagedFieldsEntry) { e.FieldsV1 = &meta.FieldsV1{} }},
		{"empty raw", func(e *meta.ManagedFieldsEntry) { e.FieldsV1 = &meta.FieldsV1{Raw: []byte{}} }},
		{"invalid raw", func(e *meta.ManagedFieldsEntry) { e.FieldsV1 = &meta.FieldsV1{Raw: []byte(`{"f:a"`)} }},
		{"raw with space", func(e *meta.ManagedFieldsEntry) { e.FieldsV1 = &meta.FieldsV1{Raw: []byte(`{ "f:a": {} }`)} }},
		{"raw with html", func(e *meta.ManagedFieldsEntry) { e.FieldsV1 = &meta.FieldsV1{Raw: []byte(`{"f:<a>&":{}}`)} }},
		{"manager with html", func(e *meta.ManagedFieldsEntry) { e.Manager = "a<b>&c" }},
		{"manager with quote", func(e *meta.ManagedFieldsEntry) { e.Manager = `a"b\c` }},
		{"manager not ascii", func(e *meta.ManagedFieldsEntry) { e.Manager = "café\u2028\xff" }},
		{"subresource with control", func(e *meta.ManagedFieldsEntry) { e.Subresource = "s\x01" }},
		{"fields type with tab", func(e *meta.ManagedFieldsEntry) { e.FieldsType = "a\tb" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries := managedEntries()
			tc.edit(&entries[1])
			got, err := MarshalManagedFields(entries)
			want, wantErr := json.Marshal(entries)
			if !bytes.Equal(got, want) || (err == nil) != (wantErr == nil) {
				t.Errorf("got %s, %v\nwant %s, %v", got, err, want, wantErr)
			}
		})
	}
	for _, entries := range [][]meta.ManagedFieldsEntry{nil, {}} {
		got, _ := MarshalManagedFields(entries)
		if want, _ := json.Marshal(entries); !bytes.Equal(got, want) {
			t.Errorf("%#v: got %s, want %s", entries, got, want)
		}
	}
}

// TestMarshalManagedFieldsAllocs checks that plain entries are written
// in fewer allocations than encoding/json takes.
func TestMarshalManagedFieldsAllocs(t *testing.T) {
	entries := managedEntries()
	direct := testing.AllocsPerRun(20, func() { _, _ = MarshalManagedFields(entries) })
	general := testing.AllocsPerRun(20, func() { _, _ = json.Marshal(entries) })
	if direct > 1+float64(len(entries)) || direct >= general {
		t.Errorf("marshalManagedFields: %v allocations, encoding/json: %v", direct, general)
	}
}

// TestAppendManagedFieldsKnownCompact checks that the fieldsV1 given as
// known to be compact is written as it is, unread, and only that very
// slice: an equal copy, or another entry's, is checked, so that a
// fieldsV1 with space in it goes to encoding/json, which compacts it.
func TestAppendManagedFieldsKnownCompact(t *testing.T) {
	spaced := []byte(`{ "f:a": {} }`) // not compact: no caller would say so
	for _, tc := range []struct {
		name    string
		compact func(entries []meta.ManagedFieldsEntry) []byte
		trusted bool
	}{
		{"the entry's own fieldsV1", func(e []meta.ManagedFieldsEntry) []byte { return e[1].FieldsV1.Raw }, true},
		{"an equal copy", func([]meta.ManagedFieldsEntry) []byte { return bytes.Clone(spaced) }, false},
		{"a prefix of it", func(e []meta.ManagedFieldsEntry) []byte { return e[1].FieldsV1.Raw[:3] }, false},
		{"another entry's", func(e []meta.ManagedFieldsEntry) []byte { return e[0].FieldsV1.Raw }, false},
		{"none", func([]meta.ManagedFieldsEntry) []byte { return nil }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries := managedEntries()
			entries[1].FieldsV1 = &meta.FieldsV1{Raw: bytes.Clone(spaced)}
			got, err := AppendManagedFieldsJSON(nil, entries, tc.compact(entries))
			if err != nil {
				t.Fatal(err)
			}
			if verbatim := bytes.Contains(got, spaced); verbatim != tc.trusted {
				t.Errorf("fieldsV1 written as given: %v, want %v:\n%s", verbatim, tc.trusted, got)
			}
			if !tc.trusted {
				if want, _ := json.Marshal(entries); !bytes.Equal(got, want) {
					t.Errorf("got %s\nwant %s", got, want)
				}
			}
		})
	}
}
