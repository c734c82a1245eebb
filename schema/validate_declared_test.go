package schema

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kapi-dev/kapi/status"
)

// randomCheckedSchema is a random schema of objects, arrays and scalars
// with checks that can fail: patterns, bounds, required properties,
// enums, nullable values, with and without additional properties.
func randomCheckedSchema(r *rand.Rand, depth int) *Schema {
	s := &Schema{Nullable: r.IntN(4) == 0}
	kind := r.IntN(5)
	if depth == 0 {
		kind = r.IntN(3)
	}
	switch kind {
	case 0:
		s.Type = "string"
		if r.IntN(2) == 0 {
			s.Pattern = "^[a-c]$"
		}
		if r.IntN(3) == 0 {
			s.Enum = []any{"a", "s"}
		}
	case 1:
		s.Type = "integer"
		one := 1.0
		s.Maximum = &one
	case 2:
		s.Type = []string{"boolean", ""}[r.IntN(2)]
	case 3:
		s.Type = "object"
		s.Properties = map[string]*Schema{}
		for _, k := range []string{"a", "b", "c", "d", "x"}[:r.IntN(6)] {
			s.Properties[k] = randomCheckedSchema(r, depth-1)
			if r.IntN(3) == 0 {
				s.Required = append(s.Required, k)
			}
		}
		if r.IntN(3) == 0 {
			s.AdditionalProperties = randomCheckedSchema(r, depth-1)
		}
	case 4:
		s.Type = "array"
		s.Items = randomCheckedSchema(r, depth-1)
	}
	return s
}

// TestValidateDeclaredMatchesMembers: objects validated property by
// property in name order (see Validator.declared) get the errors, in
// the same order, that validating their members in key order gives, on
// random schemas and values.
func TestValidateDeclaredMatchesMembers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	failed := 0
	for i := range 20000 {
		s := randomCheckedSchema(r, 3)
		v, err := NewValidator(s)
		if err != nil {
			t.Fatal(err)
		}
		general := *v
		general.names = nil // every object by its members
		x := randomJSON(r, 4, true)
		got := v.Validate(status.NewPath("spec"), x)
		want := general.Validate(status.NewPath("spec"), x)
		if g, w := spell(got), spell(want); g != w {
			t.Fatalf("%d: schema %s, value %v:\ngot  %s\nwant %s", i, describe(s), x, g, w)
		}
		if len(want) > 0 {
			failed++
		}
	}
	if failed < 2000 {
		t.Errorf("only %d of 20000 values invalid", failed)
	}
}

// spell writes errors out, one a line, in order.
func spell(errs status.FieldErrors) string {
	out := ""
	for _, e := range errs {
		out += fmt.Sprintf("%s|%s|%#v|%s\n", e.Type, e.Field, e.BadValue, e.Error())
	}
	return out
}
