package schema

import (
	"fmt"
	"testing"

	"github.com/kapi-dev/kapi/status"
)

// TestValidatingAllocatesPerObjectNotPerField: a valid value costs no
// allocation per field or item (paths are built only for errors), and an
// invalid one still reports the full path.
func TestValidatingAllocatesPerObjectNotPerField(t *testing.T) {
	maxLen := int64(5)
	value := func(fields int) (*Schema, map[string]any) {
		s := &Schema{Type: "object", Properties: map[string]*Schema{}}
		x := map[string]any{}
		for i := range fields {
			k := fmt.Sprintf("f%02d", i)
			s.Properties[k] = &Schema{Type: "array", Items: &Schema{Type: "string", MaxLength: &maxLen}}
			x[k] = []any{"a", "b", "c"}
		}
		return s, x
	}
	allocs := map[int]float64{}
	for _, n := range []int{5, 50} {
		s, x := value(n)
		v, err := NewValidator(s)
		if err != nil {
			t.Fatal(err)
		}
		p := status.NewPath("spec")
		allocs[n] = testing.AllocsPerRun(50, func() {
			if errs := v.Validate(p, x); len(errs) != 0 {
				t.Fatal(errs)
			}
		})
		x["f03"] = []any{"a", "toolong"}
		errs := v.Validate(p, x)
		if len(errs) != 1 || errs[0].Field != "spec.f03[1]" {
			t.Errorf("%d fields: errors %v, want one at spec.f03[1]", n, errs)
		}
	}
	// An object of more fields than validation sorts on the stack
	// allocates one slice for their names, once.
	if allocs[50] > allocs[5]+1 {
		t.Errorf("validating 50 fields of 3 items allocates %v times, 5 fields %v times", allocs[50], allocs[5])
	}
}
