package apiserver

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/status"
)

// TestValidateDecodedMatchesEncoding checks that validating a typed
// object from its decoded JSON (what a tracked write has) reports the
// same errors, in the same order, as encoding its fields for validation.
func TestValidateDecodedMatchesEncoding(t *testing.T) {
	plan, _ := compiledPlan(t, func() meta.Object { return &benchWidget{} })
	n := func(v int32) *int32 { return &v }
	tests := []struct {
		name   string
		change func(w *benchWidget)
		errors int
	}{
		{name: "valid", change: func(*benchWidget) {}},
		{name: "empty spec", change: func(w *benchWidget) { w.Spec = benchSpec{} }},
		{name: "replicas too high and bad color", errors: 2, change: func(w *benchWidget) { w.Spec.Replicas, w.Spec.Color = n(5000), "RED" }},
		{name: "negative replicas", errors: 1, change: func(w *benchWidget) { w.Spec.Replicas = n(-1) }},
		{name: "duplicate tags and ports", errors: 3, change: func(w *benchWidget) {
			w.Spec.Tags = []string{"a", "b", "a", "a"}
			w.Spec.Ports = append(w.Spec.Ports, benchPort{Name: "http", Port: 1})
		}},
		{name: "empty tags", change: func(w *benchWidget) { w.Spec.Tags = []string{} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := benchObject()
			tc.change(obj)
			want, err := plan.Validate(obj, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			decoded, err := patch.DecodeObject(b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := plan.Validate(obj, decoded, false)
			if err != nil {
				t.Fatal(err)
			}
			if render(got) != render(want) {
				t.Errorf("from the decoded object:\n%v\nfrom encoding:\n%v", got, want)
			}
			if len(got) != tc.errors {
				t.Errorf("%d errors, want %d: %v", len(got), tc.errors, got)
			}
		})
	}
}

// render spells out errors with their values' Go types.
func render(errs []*status.FieldError) string {
	out := ""
	for _, e := range errs {
		out += fmt.Sprintf("%s|%s|%T|%v|%s\n", e.Type, e.Field, e.BadValue, e.BadValue, e.Error())
	}
	return out
}
