package schema

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type ruledSpec struct {
	Size  string `json:"size,omitempty" rule:"self == oldSelf" message:"size is immutable" reason:"FieldValueForbidden"`
	Level int64  `json:"level,omitempty" rule:"self >= oldSelf" optionalOldSelf:"false" messageExpression:"'was ' + string(oldSelf)"`
}

func (ruledSpec) ValidationRules() []Rule {
	return []Rule{{Rule: "self.level < 10", FieldPath: ".level"}}
}

type ruledKind struct {
	Spec ruledSpec `json:"spec"`
}

// TestRulesFromGoTypes checks rules declared by struct tags and by a
// ValidationRules method land on the right nodes.
func TestRulesFromGoTypes(t *testing.T) {
	s, err := FromType(reflect.TypeFor[ruledKind]())
	if err != nil {
		t.Fatal(err)
	}
	no := false
	spec := s.Properties["spec"]
	want := map[string][]Rule{
		"spec":  {{Rule: "self.level < 10", FieldPath: ".level"}},
		"size":  {{Rule: "self == oldSelf", Message: "size is immutable", Reason: ReasonForbidden}},
		"level": {{Rule: "self >= oldSelf", MessageExpression: "'was ' + string(oldSelf)", OptionalOldSelf: &no}},
	}
	got := map[string][]Rule{"spec": spec.XValidations, "size": spec.Properties["size"].XValidations,
		"level": spec.Properties["level"].XValidations}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if !HasRules(s) || HasRules(spec.Properties["size"].DeepCopy()) != true || HasRules(&Schema{Type: "string"}) {
		t.Error("HasRules")
	}
	c := s.DeepCopy()
	*c.Properties["spec"].Properties["level"].XValidations[0].OptionalOldSelf = true
	if no {
		t.Error("DeepCopy shares optionalOldSelf")
	}
}

// TestRuleTagErrors checks malformed rule tags are refused naming the
// field.
func TestRuleTagErrors(t *testing.T) {
	type noRule struct {
		A string `json:"a" message:"m"`
	}
	type badReason struct {
		A string `json:"a" rule:"true" reason:"Nope"`
	}
	type badPath struct {
		A string `json:"a" rule:"true" fieldPath:".x"`
	}
	type badBool struct {
		A string `json:"a" rule:"true" optionalOldSelf:"maybe"`
	}
	for _, tc := range []struct {
		t    reflect.Type
		want string
	}{
		{reflect.TypeFor[noRule](), "noRule.A: tag message needs a rule tag"},
		{reflect.TypeFor[badReason](), `reason: Unsupported value: "Nope"`},
		{reflect.TypeFor[badPath](), "must be a valid path"},
		{reflect.TypeFor[badBool](), "not a boolean"},
	} {
		if _, err := FromType(tc.t); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.t, err, tc.want)
		}
	}
}

// TestRulesFromOpenAPI checks every field of a rule is read.
func TestRulesFromOpenAPI(t *testing.T) {
	s, err := FromOpenAPI([]byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{"m":{"type":"object",
	  "additionalProperties":{"type":"string"}}},"x-kubernetes-validations":[{"rule":"r","message":"m","messageExpression":"e",
	  "reason":"FieldValueRequired","fieldPath":".m['a.b']","optionalOldSelf":true}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	want := []Rule{{Rule: "r", Message: "m", MessageExpression: "e", Reason: ReasonRequired, FieldPath: ".m['a.b']", OptionalOldSelf: &yes}}
	if diff := cmp.Diff(want, s.Properties["spec"].XValidations); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}

func TestRuleFieldPath(t *testing.T) {
	s := &Schema{Type: "object", Properties: map[string]*Schema{
		"a": {Type: "object", Properties: map[string]*Schema{"b": {Type: "string"}}},
		"m": {Type: "object", AdditionalProperties: &Schema{Type: "string"}},
	}}
	for path, want := range map[string]string{
		".a.b": "a.b", ".m['x.y']": "m[x.y]", ".m.k": "m[k]", "['a']['b']": "a.b", ".m['it\\'s']": "m[it's]",
		".c": "error", "a": "error", ".a[": "error", ".m['x'": "error", ".a.b.c": "error",
	} {
		p, _, err := s.RuleFieldPath(path)
		got := p.String()
		if err != nil {
			got = "error"
		}
		if got != want {
			t.Errorf("%s: %s, want %s (%v)", path, got, want, err)
		}
	}
}
