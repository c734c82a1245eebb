package admission_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/meta"
)

// A mutating function that asks to be reinvoked runs the chain once
// more, IsReinvoke set, and values kept in the first pass are seen in
// the second; without the request the chain runs once.
func TestMutateReinvokes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		should bool
		want   []string
	}{
		{"once", false, []string{"a:first", "b:first"}},
		{"again", true, []string{"a:first", "b:first", "a:again saw a", "b:again saw a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			step := func(name string) admission.Func {
				return func(_ context.Context, a *admission.Request) error {
					r := a.Reinvocation
					if !r.IsReinvoke() {
						got = append(got, name+":first")
						r.SetValue(name, "a")
						if tc.should {
							r.SetShouldReinvoke()
						}
						return nil
					}
					got = append(got, name+":again saw "+r.Value(name).(string))
					return nil
				}
			}
			c := admission.Chain{Mutating: []admission.Func{step("a"), step("b")}}
			a := &admission.Request{Object: &meta.Unstructured{}}
			if _, err := c.Mutate(context.Background(), meta.GroupResource{Resource: "widgets"}, nil, a); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// ID is made once and kept.
func TestRequestID(t *testing.T) {
	a := &admission.Request{}
	id := a.ID()
	if len(id) != 36 || a.ID() != id {
		t.Fatalf("ID %q then %q", id, a.ID())
	}
	if (&admission.Request{}).ID() == id {
		t.Fatal("two requests share an ID")
	}
}
