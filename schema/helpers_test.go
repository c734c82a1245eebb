package schema

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLookup(t *testing.T) {
	s := mustFromType(t, widget{})
	tests := []struct {
		path []string
		want *Schema
	}{
		{nil, s},
		{[]string{"spec"}, s.Properties["spec"]},
		{[]string{"spec", "ports"}, s.Properties["spec"].Properties["ports"]},
		{[]string{"spec", "ports", "port"}, s.Properties["spec"].Properties["ports"].Items.Properties["port"]},
		{[]string{"metadata", "annotations", "example.com/x"}, s.Properties["metadata"].Properties["annotations"].AdditionalProperties},
		{[]string{"spec", "nope"}, nil},
		{[]string{"spec", "color", "deeper"}, nil},
	}
	for _, tc := range tests {
		if got := s.Lookup(tc.path...); got != tc.want {
			t.Errorf("Lookup(%v) = %p, want %p", tc.path, got, tc.want)
		}
	}
	var none *Schema
	if none.Lookup("x") != nil {
		t.Error("Lookup on nil schema")
	}
}

func TestDeepCopy(t *testing.T) {
	orig := mustFromType(t, widget{})
	orig.Properties["spec"].Default = map[string]any{"tags": []any{"a"}}
	cp := orig.DeepCopy()
	if diff := cmp.Diff(orig, cp); diff != "" {
		t.Fatalf("copy differs from the original (-original +copy):\n%s", diff)
	}
	spec := cp.Properties["spec"]
	spec.Default.(map[string]any)["tags"].([]any)[0] = "b"
	*spec.Properties["replicas"].Maximum = 1
	spec.Properties["ports"].XListMapKeys[0] = "port"
	spec.Properties["ports"].Items.Properties["protocol"].Enum[0] = "SCTP"
	spec.Required = append(spec.Required, "x")
	delete(cp.Properties, "status")

	again := mustFromType(t, widget{})
	again.Properties["spec"].Default = map[string]any{"tags": []any{"a"}}
	if diff := cmp.Diff(again, orig); diff != "" {
		t.Errorf("changing the copy changed the original (-want +got):\n%s", diff)
	}
	if (*Schema)(nil).DeepCopy() != nil {
		t.Error("DeepCopy of nil")
	}
}

type shared struct{}

var sharedSchema = &Schema{Type: "string", Enum: []any{"x"}}

func (*shared) OpenAPISchema() *Schema { return sharedSchema }

func TestProviderIsCopied(t *testing.T) {
	s := mustFromType(t, shared{})
	s.Enum[0] = "y"
	if sharedSchema.Enum[0] != "x" {
		t.Error("FromType returned the provider's own value")
	}
}
