package registry

import (
	"bytes"
	"hash/maphash"
	"testing"
	"unique"

	"github.com/kapi-dev/kapi/storage"
)

// TestSharedPartsRoundTrip: a value split into its stored value and
// shared part reads back as the whole value (storedBytes), serves as the
// whole value does (appendSpliced), and compares equal to it and to
// nothing else (sameStored), for values of typed and unstructured kinds
// and values whose other strings look like the placeholders.
func TestSharedPartsRoundTrip(t *testing.T) {
	const mf = `"managedFields":[{"manager":"m","operation":"Update","time":"2024-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:a":{}}}}]`
	for _, tc := range []struct {
		name, value string
		apart       bool
	}{
		{"typed", `{"kind":"W","metadata":{"name":"a","resourceVersion":"\u0000","labels":{"k":"v"},` + mf + `},"spec":{"a":1}}`, true},
		{"escapes before", `{"metadata":{"name":"a","resourceVersion":"\u0000","annotations":{"x":"say \"hi\" \u003c\\"},` + mf + `},"spec":{}}`, true},
		{"placeholder in spec", `{"metadata":{"resourceVersion":"\u0000",` + mf + `},"spec":{"managedFields":"\u0001"}}`, true},
		{"placeholder in annotations", `{"metadata":{"resourceVersion":"\u0000","annotations":{"managedFields":"\u0001"},` + mf + `}}`, false},
		{"sorted keys", `{"apiVersion":"v1","metadata":{` + mf + `,"name":"a","resourceVersion":"\u0000"}}`, false},
		{"no managedFields", `{"metadata":{"name":"a","resourceVersion":"\u0000"}}`, false},
		{"no placeholder", `{"metadata":{"name":"a","resourceVersion":"7",` + mf + `}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Resource{SharesManagedFields: true,
				Managed: &ManagedInterner{Seed: maphash.MakeSeed(), Seen: map[uint64]unique.Handle[string]{}}}
			whole := []byte(tc.value)
			if _, _, ok := r.ShareManagedFields(whole); ok {
				t.Fatal("a member seen for the first time is kept apart")
			}
			stored, shared, ok := r.ShareManagedFields(whole)
			if ok != tc.apart {
				t.Fatalf("kept apart: %v, want %v (%s)", ok, tc.apart, stored)
			}
			kv := &storage.KeyValue{Value: stored, Shared: shared, ModRevision: 42}
			if got := StoredBytes(kv); !bytes.Equal(got, whole) {
				t.Errorf("put back together:\n got %s\nwant %s", got, whole)
			}
			if !SameStored(whole, kv) {
				t.Error("the whole value does not compare equal to its parts")
			}
			other := bytes.Clone(whole)
			other[len(other)-3] ^= 1
			if SameStored(other, kv) {
				t.Error("another value compares equal to the parts")
			}
			if at := RvMarkerIndex(whole); at >= 0 {
				wholeKV := &storage.KeyValue{Value: whole, ModRevision: 42}
				if got, want := AppendSpliced(nil, kv, RvMarkerIndex(stored)), AppendSpliced(nil, wholeKV, at); !bytes.Equal(got, want) {
					t.Errorf("served:\n got %s\nwant %s", got, want)
				}
			}
		})
	}
}
