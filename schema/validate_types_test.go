package schema

import (
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/status"
)

// TestValidateTypesAndOrder checks the type checks that look at a
// node's format, numbers that do not fit their type's range, and the
// order of a node's errors, each against kube-apiserver's answer for
// the same custom resource.
func TestValidateTypesAndOrder(t *testing.T) {
	s, err := FromOpenAPI([]byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{
	 "i":{"type":"integer","format":"int32"},"l":{"type":"integer","format":"int64"},
	 "d":{"type":"string","format":"date-time"},"f":{"type":"number","format":"float"},
	 "dbl":{"type":"number","format":"double"},"b":{"type":"boolean","format":"x"},
	 "j":{"type":"integer","maximum":2.5},
	 "s":{"type":"string","maxLength":2,"minLength":2,"pattern":"^a"},
	 "n":{"type":"integer","maximum":3,"multipleOf":2},"m":{"type":"integer","minimum":5,"multipleOf":2},
	 "e":{"type":"integer","enum":[1,2],"maximum":5},"ns":{"type":"string","enum":["a"],"nullable":true},
	 "list":{"type":"array","minItems":3,"items":{"type":"string"}},
	 "set":{"type":"array","x-kubernetes-list-type":"set","maxItems":1,"items":{"type":"string","maxLength":1}},
	 "ios":{"x-kubernetes-int-or-string":true,"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"pattern":"^[0-9]+%?$"}]}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewValidator(s)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		spec string
		want []string
	}{
		{`{"i":true}`, []string{`spec.i: Invalid value: "": spec.i in body must be of type int32: ""`}},
		{`{"i":{"x":1}}`, []string{`spec.i: Invalid value: "": spec.i in body must be of type int32: ""`}},
		{`{"i":"5"}`, []string{`spec.i: Invalid value: "string": spec.i in body must be of type integer: "string"`}},
		{`{"i":[1]}`, []string{`spec.i: Invalid value: "array": spec.i in body must be of type integer: "array"`}},
		{`{"i":2.0}`, nil},
		{`{"i":3000000000}`, []string{`<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.i`}},
		{`{"l":1.5}`, []string{`spec.l: Invalid value: "float64": spec.l in body must be of type int64: "float64"`,
			`<nil>: Invalid value: "": Checked value must be of type integer with format int64 in spec.l`}},
		{`{"d":5}`, []string{`spec.d: Invalid value: "int64": spec.d in body must be of type date-time: "int64"`}},
		{`{"d":true}`, []string{`spec.d: Invalid value: "": spec.d in body must be of type date-time: ""`}},
		{`{"d":[1]}`, nil},
		{`{"f":1e39}`, []string{`<nil>: Invalid value: "": Checked value must be of type number with format float in spec.f`}},
		{`{"dbl":true}`, []string{`spec.dbl: Invalid value: "": spec.dbl in body must be of type double: ""`}},
		{`{"b":5}`, []string{`spec.b: Invalid value: "integer": spec.b in body must be of type boolean: "integer"`}},
		{`{"j":2}`, []string{`<nil>: Invalid value: "": Maximum boundary value must be of type integer (default format) in spec.j`}},
		{`{"s":"bcd"}`, []string{`spec.s: Too long: may not be more than 2 bytes`}},
		{`{"s":"b"}`, []string{`spec.s: Invalid value: "b": spec.s in body should be at least 2 chars long`}},
		{`{"m":3}`, []string{`spec.m: Invalid value: 3: spec.m in body should be a multiple of 2`,
			`spec.m: Invalid value: 3: spec.m in body should be greater than or equal to 5`}},
		{`{"n":7}`, []string{`spec.n: Invalid value: 7: spec.n in body should be a multiple of 2`,
			`spec.n: Invalid value: 7: spec.n in body should be less than or equal to 3`}},
		{`{"e":7}`, []string{`spec.e: Invalid value: 7: spec.e in body should be less than or equal to 5`,
			`spec.e: Unsupported value: 7: supported values: "1", "2"`}},
		{`{"e":"x"}`, []string{`spec.e: Invalid value: "string": spec.e in body must be of type integer: "string"`,
			`spec.e: Unsupported value: "x": supported values: "1", "2"`}},
		{`{"ns":null}`, []string{`spec.ns: Unsupported value: null: supported values: "a"`}},
		{`{"list":["a",1]}`, []string{`spec.list[1]: Invalid value: "integer": spec.list[1] in body must be of type string: "integer"`,
			`spec.list: Invalid value: 2: spec.list in body should have at least 3 items`}},
		{`{"set":["aa","aa"]}`, []string{`spec.set[0]: Too long: may not be more than 1 byte`, `spec.set[1]: Too long: may not be more than 1 byte`,
			`spec.set: Too many: 2: must have at most 1 item`, `spec.set[1]: Duplicate value: "aa"`}},
		{`{"ios":2.5}`, []string{`spec.ios: Invalid value: "number": spec.ios in body must be of type integer,string: "number"`,
			`<nil>: Invalid value: "": "spec.ios" must validate at least one schema (anyOf)`,
			`spec.ios: Invalid value: "number": spec.ios in body must be of type integer: "number"`,
			`<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.ios`,
			`<nil>: Invalid value: "": "spec.ios" must validate all the schemas (allOf)`}},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			got := messages(v.Validate(status.Path{}, map[string]any{"spec": mustJSON(t, tc.spec)}))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}
