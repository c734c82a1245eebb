package cel

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/status"
)

// TestCompileErrors checks rules that cannot run are refused at
// compile time, worded as kube-apiserver words them for CRDs.
func TestCompileErrors(t *testing.T) {
	prop := func(schema string) string {
		return `{"type":"object","properties":{"spec":` + schema + `}}`
	}
	tests := []struct {
		name, doc, want string
	}{
		{"syntax", prop(`{"type":"object","x-kubernetes-validations":[{"rule":"self.a ==="}]}`),
			`openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: {"Rule":"self.a ===","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:10: Syntax error`},
		{"missing field", prop(`{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-validations":[{"rule":"self.b == 'x'"}]}`),
			"undefined field 'b'"},
		{"not a bool", prop(`{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-validations":[{"rule":"self.a"}]}`),
			"cel expression must evaluate to a bool"},
		{"type mismatch", prop(`{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-validations":[{"rule":"self.a > 1"}]}`),
			"found no matching overload for '_>_' applied to '(string, int)'"},
		{"messageExpression not a string", prop(`{"type":"integer","x-kubernetes-validations":[{"rule":"self > 0","messageExpression":"self"}]}`),
			`x-kubernetes-validations[0].messageExpression: Invalid value: {"Rule":"self \u003e 0","Message":"","MessageExpression":"self","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression must evaluate to a string`},
		{"oldSelf in an atomic list", prop(`{"type":"array","maxItems":5,"items":{"type":"integer","x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}`),
			"oldSelf cannot be used on the uncorrelatable portion of the schema within openAPIV3Schema.properties[spec]"},
		{"oldSelf in a set", prop(`{"type":"array","maxItems":5,"x-kubernetes-list-type":"set","items":{"type":"integer","x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}`),
			"oldSelf cannot be used on the uncorrelatable portion"},
		{"optionalOldSelf without oldSelf", prop(`{"type":"integer","x-kubernetes-validations":[{"rule":"self > 0","optionalOldSelf":true}]}`),
			"optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule"},
		{"cost of one rule", prop(`{"type":"array","items":{"type":"string"},"x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x != y || x == y))"}]}`),
			"x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"},
		{"cost times cardinality", prop(`{"type":"array","items":{"type":"string","x-kubernetes-validations":[{"rule":"self.matches('^[a-z]+$')"}]}}`),
			"openAPIV3Schema.properties[spec].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x"},
		{"unknown function", prop(`{"type":"string","maxLength":5,"x-kubernetes-validations":[{"rule":"self.frobnicate()"}]}`),
			"undeclared reference to 'frobnicate'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := compileErr(t, tc.doc)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// TestCostBounds checks that bounds in the schema bring a rule that
// would be refused under the per-expression limit.
func TestCostBounds(t *testing.T) {
	unbounded := `{"type":"object","properties":{"spec":{"type":"array","items":{"type":"string"},"x-kubernetes-validations":[{"rule":"self.all(x, x.matches('^[a-z]+$'))"}]}}}`
	if _, err := compileErr(t, unbounded); err == nil || !strings.Contains(err.Error(), "exceeds budget") {
		t.Errorf("unbounded: %v", err)
	}
	bounded := `{"type":"object","properties":{"spec":{"type":"array","maxItems":100,"items":{"type":"string","maxLength":64},"x-kubernetes-validations":[{"rule":"self.all(x, x.matches('^[a-z]+$'))"}]}}}`
	if _, err := compileErr(t, bounded); err != nil {
		t.Errorf("bounded: %v", err)
	}
}

// quadratic is a rule that passes the static estimate only because the
// per-call limit is lowered, so that it runs out at run time.
const quadratic = `{"type":"object","properties":{"spec":{"type":"array","maxItems":100,"items":{"type":"integer"},
 "x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x + y >= 0))","message":"sums are not negative"}]}}}`

func list(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}

// TestRuntimeCost checks the per-call limit and the per-request budget
// stop evaluation with kube-apiserver's messages.
func TestRuntimeCost(t *testing.T) {
	e, err := New(Options{PerCallLimit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	v := compileWith(t, e, quadratic)
	errs, _ := v.Validate(context.Background(), map[string]any{"spec": list(100)}, nil)
	want := "spec: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: sums are not negative"
	if errs.Error() != want {
		t.Errorf("per-call limit:\n%v\nwant\n%v", errs, want)
	}
	if errs, _ := v.Validate(context.Background(), map[string]any{"spec": list(5)}, nil); len(errs) != 0 {
		t.Errorf("small list: %v", errs)
	}

	e, _ = New(Options{RuntimeBudget: 5000})
	v = compileWith(t, e, quadratic)
	errs, _ = v.Validate(context.Background(), map[string]any{"spec": list(100)}, nil)
	want = `spec: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run`
	if errs.Error() != want {
		t.Errorf("budget:\n%v\nwant\n%v", errs, want)
	}
}

// TestDeadline checks an evaluation stops when the request's context
// is done.
func TestDeadline(t *testing.T) {
	v := compile(t, quadratic)
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	errs, _ := v.Validate(ctx, map[string]any{"spec": list(100)}, nil)
	if len(errs) != 1 || !strings.Contains(errs.Error(), "operation interrupted") {
		t.Errorf("errors: %v", errs)
	}
}

// TestCompileCauses checks each problem is its own cause at its rule's
// path below the root given, in kube-apiserver's order: the rules below
// a node before the node's own (map values, then properties by name,
// then items), for each rule its cost, its error, its
// messageExpression's, then its use of oldSelf; then the most expensive
// rules and the total.
func TestCompileCauses(t *testing.T) {
	const doc = `{"type":"object","properties":{"spec":{"type":"object",
	 "properties":{
	  "list":{"type":"array","items":{"type":"integer","x-kubernetes-validations":[{"rule":"self == oldSelf"}]}},
	  "a":{"type":"integer"},
	  "names":{"type":"array","items":{"type":"string"}},
	  "m":{"type":"object","additionalProperties":{"type":"string","maxLength":3,"x-kubernetes-validations":[{"rule":"self.size() +"}]}}},
	 "x-kubernetes-validations":[
	  {"rule":"self.a +"},
	  {"rule":"self.a > 0","messageExpression":"1 +"},
	  {"rule":"self.names.all(x, self.names.all(y, x == y))","reason":"FieldValueForbidden"},
	  {"rule":"self.a > 1","optionalOldSelf":true}]}}}`
	_, err := compileErr(t, doc, status.NewPath("spec", "versions").Index(1).Child("schema").Child("openAPIV3Schema"))
	var errs status.FieldErrors
	if !errors.As(err, &errs) {
		t.Fatalf("error %v, want field errors", err)
	}
	const root = "spec.versions[1].schema.openAPIV3Schema.properties[spec]."
	want := []string{
		root + `properties[list].items.x-kubernetes-validations[0].rule: FieldValueInvalid: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[list]`,
		root + `properties[m].additionalProperties.x-kubernetes-validations[0].rule: FieldValueInvalid: Invalid value: {"Rule":"self.size() +","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:14: Syntax error`,
		root + `x-kubernetes-validations[0].rule: FieldValueInvalid: Invalid value: {"Rule":"self.a +","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:9: Syntax error`,
		root + `x-kubernetes-validations[1].messageExpression: FieldValueInvalid: Invalid value: {"Rule":"self.a \u003e 0","Message":"","MessageExpression":"1 +","Reason":null,"FieldPath":"","OptionalOldSelf":null}: messageExpression compilation failed: ERROR: <input>:1:4: Syntax error`,
		root + `x-kubernetes-validations[2].rule: FieldValueForbidden: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
		root + `x-kubernetes-validations[3].optionalOldSelf: FieldValueInvalid: Invalid value: true: may not be set if oldSelf is not used in rule`,
		root + `x-kubernetes-validations[2].rule: FieldValueForbidden: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
		root + `properties[list].items.x-kubernetes-validations[0].rule: FieldValueForbidden: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
		`spec.versions[1].schema.openAPIV3Schema: FieldValueForbidden: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
	}
	got := make([]string, len(errs))
	for i, e := range errs {
		got[i] = e.Field + ": " + string(e.Type) + ": " + e.ErrorBody()
	}
	if len(got) != len(want) {
		t.Fatalf("causes:\n%s\nwant:\n%s", joined(got), joined(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("cause %d:\n%s\nwant it to begin\n%s", i, got[i], want[i])
		}
	}
}
