package schema

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// randomDefaultsSchema is a random schema of objects, arrays and
// scalars, some with defaults (which may hold nulls), nullable or not.
func randomDefaultsSchema(r *rand.Rand, depth int) *Schema {
	s := &Schema{Nullable: r.IntN(4) == 0}
	kind := r.IntN(5)
	if depth == 0 {
		kind = 0
	}
	switch kind {
	case 0:
		s.Type = []string{"string", "integer", "boolean", ""}[r.IntN(4)]
	case 1, 2:
		s.Type = "object"
		s.Properties = map[string]*Schema{}
		for _, k := range []string{"a", "b", "c", "d"}[:r.IntN(5)] {
			s.Properties[k] = randomDefaultsSchema(r, depth-1)
		}
		if r.IntN(3) == 0 {
			s.AdditionalProperties = randomDefaultsSchema(r, depth-1)
		}
	case 3, 4:
		s.Type = "array"
		s.Items = randomDefaultsSchema(r, depth-1)
	}
	if r.IntN(2) == 0 {
		s.Default = randomJSON(r, 2, true)
	}
	return s
}

// randomJSON is a random decoded JSON value; with nulls it may hold
// some, anywhere.
func randomJSON(r *rand.Rand, depth int, nulls bool) any {
	n := 7
	if depth == 0 {
		n = 3
	}
	switch r.IntN(n) {
	case 0:
		if nulls {
			return nil
		}
		return "s"
	case 1:
		return int64(r.IntN(3))
	case 2:
		return r.IntN(2) == 0
	case 3:
		l := make([]any, r.IntN(3))
		for i := range l {
			l[i] = randomJSON(r, depth-1, nulls)
		}
		return l
	}
	m := map[string]any{}
	for _, k := range []string{"a", "b", "c", "d", "x"} {
		if r.IntN(2) == 0 {
			m[k] = randomJSON(r, depth-1, nulls)
		}
	}
	return m
}

// TestFormDefaulterMatchesApplyDefaults: on values without nulls, the
// plan gives what ApplyDefaults gives, value and report, on random
// schemas and values.
func TestFormDefaulterMatchesApplyDefaults(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	changed := 0
	for i := range 20000 {
		s := randomDefaultsSchema(r, 3)
		d := NewFormDefaulter(s)
		x := randomJSON(r, 4, false)
		want, got := copyJSON(x), copyJSON(x)
		wantChanged := s.ApplyDefaults(want)
		gotChanged := d.Apply(got)
		if diff := cmp.Diff(want, got); diff != "" || gotChanged != wantChanged {
			t.Fatalf("%d: schema %s, value %v: changed %v, want %v; value (-want +got):\n%s", i, describe(s), x, gotChanged, wantChanged, diff)
		}
		if wantChanged {
			changed++
		}
	}
	if changed < 1000 {
		t.Errorf("only %d of 20000 values defaulted", changed)
	}
}

// TestFormDefaulterTable covers the plan's cases one by one.
func TestFormDefaulterTable(t *testing.T) {
	str := &Schema{Type: "string", Default: "d"}
	withNull := &Schema{Type: "object", Default: map[string]any{"x": nil, "y": nil},
		Properties: map[string]*Schema{"x": {Type: "string"}, "y": {Type: "string", Nullable: true}}}
	cyclic := &Schema{Type: "object", Properties: map[string]*Schema{"v": str}}
	cyclic.Properties["self"] = cyclic
	for _, tc := range []struct {
		name   string
		schema *Schema
		in     any
		want   any
	}{
		{"missing property", &Schema{Properties: map[string]*Schema{"s": str}}, map[string]any{}, map[string]any{"s": "d"}},
		{"present property", &Schema{Properties: map[string]*Schema{"s": str}}, map[string]any{"s": "x"}, map[string]any{"s": "x"}},
		{"default with nulls", &Schema{Properties: map[string]*Schema{"o": withNull}}, map[string]any{},
			map[string]any{"o": map[string]any{"y": nil}}},
		{"below a property", &Schema{Properties: map[string]*Schema{"o": {Properties: map[string]*Schema{"s": str}}}},
			map[string]any{"o": map[string]any{}}, map[string]any{"o": map[string]any{"s": "d"}}},
		{"absent object", &Schema{Properties: map[string]*Schema{"o": {Properties: map[string]*Schema{"s": str}}}},
			map[string]any{}, map[string]any{}},
		{"items", &Schema{Items: &Schema{Properties: map[string]*Schema{"s": str}}},
			[]any{map[string]any{}, map[string]any{"s": "x"}, "z"}, []any{map[string]any{"s": "d"}, map[string]any{"s": "x"}, "z"}},
		{"additional", &Schema{Properties: map[string]*Schema{"k": {}}, AdditionalProperties: &Schema{Properties: map[string]*Schema{"s": str}}},
			map[string]any{"k": map[string]any{}, "o": map[string]any{}},
			map[string]any{"k": map[string]any{}, "o": map[string]any{"s": "d"}}},
		{"cyclic", cyclic, map[string]any{"self": map[string]any{"self": map[string]any{}}},
			map[string]any{"v": "d", "self": map[string]any{"v": "d", "self": map[string]any{"v": "d"}}}},
		{"nothing to default", &Schema{Properties: map[string]*Schema{"s": {Type: "string"}}}, map[string]any{}, map[string]any{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := copyJSON(tc.in)
			NewFormDefaulter(tc.schema).Apply(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			general := copyJSON(tc.in)
			tc.schema.ApplyDefaults(general)
			if diff := cmp.Diff(tc.want, general); diff != "" {
				t.Errorf("ApplyDefaults gives (-want +got):\n%s", diff)
			}
		})
	}
}

func describe(s *Schema) string {
	if s == nil {
		return "nil"
	}
	out := fmt.Sprintf("{%s", s.Type)
	if s.Nullable {
		out += " nullable"
	}
	if s.Default != nil {
		out += fmt.Sprintf(" default=%v", s.Default)
	}
	for k, p := range s.Properties {
		out += " " + k + ":" + describe(p)
	}
	if s.AdditionalProperties != nil {
		out += " *:" + describe(s.AdditionalProperties)
	}
	if s.Items != nil {
		out += " []" + describe(s.Items)
	}
	return out + "}"
}
