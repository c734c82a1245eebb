package patch

import (
	"fmt"
	"testing"

	"github.com/kapi-dev/kapi/meta"
)

func TestSetCache(t *testing.T) {
	pt, err := SMDSchema(nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, raw string
		canonical bool
	}{
		{"as encoded", `{"f:spec":{".":{},"f:replicas":{}}}`, true},
		{"spaced", `{"f:spec": {".": {}, "f:replicas": {}}}`, false},
		{"keys out of order", `{"f:spec":{"f:replicas":{},".":{}}}`, false},
		{"empty", `{}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newSetCache(pt)
			first, err := c.decode([]byte(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			again, err := c.decode([]byte(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			if again != first {
				t.Error("the same bytes were decoded twice")
			}
			if (first.raw != nil) != tc.canonical {
				t.Errorf("kept bytes %q, want them kept %v", first.raw, tc.canonical)
			}
			// Encoding the entries gives the set's encoding either way.
			mg, err := decodeManaged([]meta.ManagedFieldsEntry{{Manager: "m", Operation: meta.ManagedFieldsOperationUpdate, APIVersion: "v1",
				FieldsType: FieldsTypeV1, FieldsV1: &meta.FieldsV1{Raw: []byte(tc.raw)}}}, c)
			if err != nil {
				t.Fatal(err)
			}
			out, err := mg.encode()
			if err != nil {
				t.Fatal(err)
			}
			want, _ := first.set.ToJSON()
			if string(out[0].FieldsV1.Raw) != string(want) {
				t.Errorf("encoded %s, want %s", out[0].FieldsV1.Raw, want)
			}
		})
	}
}

func TestSetCacheBounded(t *testing.T) {
	pt, err := SMDSchema(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := newSetCache(pt)
	for i := range 20000 {
		if _, err := c.decode(fmt.Appendf(nil, `{"f:spec":{"f:field%08d":{}}}`, i)); err != nil {
			t.Fatal(err)
		}
		if c.bytes > maxCachedSetBytes {
			t.Fatalf("%d bytes cached after %d sets", c.bytes, i+1)
		}
	}
	n := 0
	for k := range c.sets {
		n += len(k)
	}
	if n != c.bytes || n == 0 {
		t.Errorf("cache holds %d bytes, counts %d", n, c.bytes)
	}
}

// TestDecodeManagedReusesSets wants entries decoded before to cost a
// fraction of decoding them the first time.
func TestDecodeManagedReusesSets(t *testing.T) {
	pt, err := SMDSchema(nil)
	if err != nil {
		t.Fatal(err)
	}
	entries := []meta.ManagedFieldsEntry{
		{Manager: "a", Operation: meta.ManagedFieldsOperationUpdate, APIVersion: "v1", FieldsType: FieldsTypeV1,
			FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:metadata":{"f:labels":{".":{},"f:a":{},"f:b":{}}},"f:spec":{".":{},"f:color":{},"f:replicas":{},"f:size":{}}}`)}},
		{Manager: "b", Operation: meta.ManagedFieldsOperationApply, APIVersion: "v1", FieldsType: FieldsTypeV1,
			FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:status":{".":{},"f:readyReplicas":{},"f:selector":{}}}`)}},
	}
	decode := func(c *setCache) float64 {
		return testing.AllocsPerRun(20, func() {
			mg, err := decodeManaged(entries, c)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := mg.encode(); err != nil {
				t.Fatal(err)
			}
		})
	}
	uncached, cached := decode(nil), decode(newSetCache(pt))
	if cached*3 > uncached {
		t.Errorf("%v allocations with the cache, %v without", cached, uncached)
	}
}
