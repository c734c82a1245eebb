package fastfields_test

import (
	"slices"
	"testing"

	"github.com/kapi-dev/kapi/patch/internal/fastfields"
	smd "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// TestCreatedJSONFieldOrder: CreatedJSON writes a struct's fields in
// name order, and declines an undeclared one, whether the schema
// declares them in name order (as SMDSchema does, which the walk looks
// up in that order) or not (the object's keys are then sorted).
func TestCreatedJSONFieldOrder(t *testing.T) {
	str := smd.TypeRef{Inlined: smd.Atom{Scalar: ptr(smd.String)}}
	labels := smd.TypeRef{Inlined: smd.Atom{Map: &smd.Map{ElementType: str}}}
	declared := []smd.StructField{{Name: "a", Type: str}, {Name: "b", Type: labels}, {Name: "c", Type: str}, {Name: "d", Type: str}}
	fieldsOf := func(fs []smd.StructField) fastfields.Fields {
		name := "root"
		s := &smd.Schema{Types: []smd.TypeDef{{Name: name, Atom: smd.Atom{Map: &smd.Map{Fields: fs}}}}}
		return fastfields.Fields{Type: typed.ParseableType{Schema: s, TypeRef: smd.TypeRef{NamedType: &name}}}
	}
	reversed := slices.Clone(declared)
	slices.Reverse(reversed)
	tests := []struct {
		name string
		obj  map[string]any
		want string // "" when declined
	}{
		{"every field", map[string]any{"d": "x", "c": "x", "b": map[string]any{"z": "1", "y": "2"}, "a": "x"},
			`{"f:a":{},"f:b":{".":{},"f:y":{},"f:z":{}},"f:c":{},"f:d":{}}`},
		{"some fields", map[string]any{"d": "x", "b": map[string]any{}}, `{"f:b":{},"f:d":{}}`},
		{"no field", map[string]any{}, `{}`},
		{"an undeclared field", map[string]any{"a": "x", "e": "x"}, ""},
		{"only an undeclared field", map[string]any{"e": "x"}, ""},
	}
	for _, order := range []struct {
		name   string
		fields fastfields.Fields
	}{{"in name order", fieldsOf(declared)}, {"reversed", fieldsOf(reversed)}} {
		for _, tc := range tests {
			got, ok := order.fields.CreatedJSON(nil, tc.obj, nil, nil)
			if !ok {
				got = nil
			}
			if string(got) != tc.want {
				t.Errorf("%s, %s: written %q, want %q", order.name, tc.name, got, tc.want)
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }
