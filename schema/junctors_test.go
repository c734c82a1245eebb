package schema

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kapi-dev/kapi/status"
)

// TestJunctorRefusals checks what a value validation may not say, with
// kube-apiserver's messages and paths.
func TestJunctorRefusals(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"type in anyOf", `{"type":"object","properties":{"a":{"type":"string","anyOf":[{"type":"string"}]}}}`,
			"openAPIV3Schema.properties.a.anyOf[0].type: Forbidden: must be empty to be structural"},
		{"default in allOf", `{"type":"object","allOf":[{"default":{}}]}`,
			"openAPIV3Schema.allOf[0].default: Forbidden: must be undefined to be structural"},
		{"description in oneOf", `{"type":"object","oneOf":[{"description":"x"}]}`,
			"openAPIV3Schema.oneOf[0].description: Forbidden: must be empty to be structural"},
		{"title in not", `{"type":"object","not":{"title":"x"}}`,
			"openAPIV3Schema.not.title: Forbidden: must be empty to be structural"},
		{"nullable", `{"type":"object","anyOf":[{"nullable":true}]}`,
			"openAPIV3Schema.anyOf[0].nullable: Forbidden: must be false to be structural"},
		{"additionalProperties", `{"type":"object","anyOf":[{"additionalProperties":{}}]}`,
			"openAPIV3Schema.anyOf[0].additionalProperties: Forbidden: must be undefined to be structural"},
		{"preserve unknown fields", `{"type":"object","not":{"x-kubernetes-preserve-unknown-fields":true}}`,
			"openAPIV3Schema.not.x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural"},
		{"embedded resource", `{"type":"object","allOf":[{"x-kubernetes-embedded-resource":true}]}`,
			"openAPIV3Schema.allOf[0].x-kubernetes-embedded-resource: Forbidden: must be false to be structural"},
		{"int-or-string", `{"type":"object","allOf":[{"x-kubernetes-int-or-string":true}]}`,
			"openAPIV3Schema.allOf[0].x-kubernetes-int-or-string: Forbidden: must be false to be structural"},
		{"list type", `{"type":"object","anyOf":[{"x-kubernetes-list-type":"set"}]}`,
			"openAPIV3Schema.anyOf[0].x-kubernetes-list-type: Forbidden: must be undefined to be structural"},
		{"list map keys", `{"type":"object","anyOf":[{"x-kubernetes-list-map-keys":["a"]}]}`,
			"openAPIV3Schema.anyOf[0].x-kubernetes-list-map-keys: Forbidden: must be empty to be structural"},
		{"map type", `{"type":"object","anyOf":[{"x-kubernetes-map-type":"atomic"}]}`,
			"openAPIV3Schema.anyOf[0].x-kubernetes-map-type: Forbidden: must be undefined to be structural"},
		{"rules", `{"type":"object","anyOf":[{"x-kubernetes-validations":[{"rule":"true"}]}]}`,
			"openAPIV3Schema.anyOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural"},
		{"metadata", `{"type":"object","properties":{"metadata":{"type":"object"}},"anyOf":[{"properties":{"metadata":{}}}]}`,
			"openAPIV3Schema.anyOf[0].properties.metadata: Forbidden: must not be specified in a nested context"},
		{"deeper type", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}},"anyOf":[{"properties":{"a":{"properties":{"b":{"type":"string"}}}}}]}`,
			"openAPIV3Schema.anyOf[0].properties.a.properties.b.type: Forbidden: must be empty to be structural"},
		{"nested int-or-string anyOf", `{"type":"object","properties":{"a":{"x-kubernetes-int-or-string":true,"not":{"anyOf":[{"type":"integer"},{"type":"string"}]}}}}`,
			"openAPIV3Schema.properties.a.not.anyOf[0].type: Forbidden: must be empty to be structural"},
		{"empty anyOf", `{"type":"object","anyOf":[]}`, "openAPIV3Schema.anyOf: must be a non-empty array of schemas"},
		{"not a list", `{"type":"object","oneOf":{"required":["a"]}}`, "openAPIV3Schema.oneOf: must be a non-empty array of schemas"},
		{"property missing", `{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}}}},"anyOf":[{"properties":{"spec":{"properties":{"b":{"minLength":1}}}}}]}`,
			"openAPIV3Schema.properties.spec.properties.b: Required value: because it is defined in openAPIV3Schema.anyOf[0].properties.spec.properties.b"},
		{"items missing", `{"type":"object","properties":{"a":{"type":"string"}},"not":{"properties":{"a":{"items":{"minLength":1}}}}}`,
			"openAPIV3Schema.properties.a.items: Required value: because it is defined in openAPIV3Schema.not.properties.a.items"},
		{"deeper junctor", `{"type":"object","properties":{"a":{"type":"object"}},"allOf":[{"properties":{"a":{"oneOf":[{"properties":{"x":{"minLength":1}}}]}}}]}`,
			"openAPIV3Schema.properties.a.properties.x: Required value: because it is defined in openAPIV3Schema.allOf[0].properties.a.oneOf[0].properties.x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromOpenAPI([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestJunctorsAccepted checks the value validations kube-apiserver
// accepts and how they are kept.
func TestJunctorsAccepted(t *testing.T) {
	tests := []struct {
		name, doc string
		check     func(s *Schema) bool
	}{
		{"anyOf of requireds", `{"type":"object","anyOf":[{"required":["a"]},{"required":["b"]}],"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`,
			func(s *Schema) bool { return len(s.AnyOf) == 2 && s.AnyOf[1].Required[0] == "b" }},
		{"oneOf with properties", `{"type":"object","properties":{"a":{"type":"string"}},"oneOf":[{"properties":{"a":{"pattern":"^x"}}},{"properties":{"a":{"maxLength":2}}}]}`,
			func(s *Schema) bool {
				return s.OneOf[0].Properties["a"].Pattern == "^x" && *s.OneOf[1].Properties["a"].MaxLength == 2
			}},
		{"not with enum", `{"type":"object","properties":{"a":{"type":"string","not":{"enum":["x"]}}}}`,
			func(s *Schema) bool { return reflect.DeepEqual(s.Properties["a"].Not.Enum, []any{"x"}) }},
		{"items", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"allOf":[{"items":{"minLength":1}}]}}}`,
			func(s *Schema) bool { return *s.Properties["a"].AllOf[0].Items.MinLength == 1 }},
		{"int-or-string anyOf", `{"type":"object","properties":{"a":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}}}`,
			func(s *Schema) bool { return s.Properties["a"].AnyOf[1].Type == "string" }},
		{"int-or-string allOf", `{"type":"object","properties":{"a":{"x-kubernetes-int-or-string":true,"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"pattern":"^[0-9]+%?$"}]}}}`,
			func(s *Schema) bool {
				return s.Properties["a"].AllOf[0].AnyOf[0].Type == "integer" && s.Properties["a"].AllOf[1].Pattern != ""
			}},
		{"nested junctors", `{"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"not":{"required":["a"]}}]}`,
			func(s *Schema) bool { return s.AnyOf[0].Not.Required[0] == "a" }},
		{"incomplete below the root, as kube-apiserver accepts", `{"type":"object","properties":{"spec":{"type":"object","anyOf":[{"properties":{"b":{"minLength":1}}}]}}}`,
			func(s *Schema) bool { return s.Properties["spec"].AnyOf[0].Properties["b"] != nil }},
		{"externalDocs and example", `{"type":"object","anyOf":[{"example":1,"format":"int32"}]}`,
			func(s *Schema) bool { return s.AnyOf[0].Format == "int32" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := FromOpenAPI([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(s) {
				t.Errorf("schema kept wrong: %+v", s)
			}
			if diff := cmp.Diff(s, s.DeepCopy()); diff != "" {
				t.Errorf("DeepCopy lost the value validations (-original +copy):\n%s", diff)
			}
		})
	}
}

// TestValidateJunctors checks the errors of failed value validations
// against kube-apiserver's for the same custom resource.
func TestValidateJunctors(t *testing.T) {
	const props = `"properties":{"a":{"type":"string"},"b":{"type":"string"},"n":{"type":"integer"},"list":{"type":"array","items":{"type":"string"}}}`
	spec := func(junctors string) string {
		return `{"type":"object","properties":{"spec":{"type":"object",` + props + `,` + junctors + `}}}`
	}
	field := func(name, s string) string {
		return `{"type":"object","properties":{"spec":{"type":"object","properties":{"` + name + `":` + s + `}}}}`
	}
	tests := []struct {
		name, doc, spec string
		want            []string
	}{
		{"anyOf met", spec(`"anyOf":[{"required":["a"]},{"required":["b"]}]`), `{"b":"x"}`, nil},
		{"anyOf failed", spec(`"anyOf":[{"required":["a"]},{"required":["b"]}]`), `{"n":1}`, []string{
			`<nil>: Invalid value: "": "spec" must validate at least one schema (anyOf)`,
			`spec.a: Required value`}},
		{"anyOf shows the closest", spec(`"anyOf":[{"required":["a"]},{"properties":{"n":{"minimum":5}}}]`), `{"n":1}`, []string{
			`<nil>: Invalid value: "": "spec" must validate at least one schema (anyOf)`,
			`spec.n: Invalid value: 1: spec.n in body should be greater than or equal to 5`}},
		{"oneOf met", spec(`"oneOf":[{"required":["a"]},{"required":["b"]}]`), `{"a":"x"}`, nil},
		{"oneOf none", spec(`"oneOf":[{"required":["a"]},{"required":["b"]}]`), `{}`, []string{
			`<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid`,
			`spec.a: Required value`}},
		{"oneOf two", spec(`"oneOf":[{"required":["a"]},{"required":["b"]},{"required":["n"]}]`), `{"a":"x","b":"y"}`, []string{
			`<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives`}},
		{"allOf met", spec(`"allOf":[{"required":["a"]},{"required":["b"]}]`), `{"a":"x","b":"y"}`, nil},
		{"allOf one failed", spec(`"allOf":[{"required":["a"]},{"properties":{"b":{"maxLength":1}}}]`), `{"a":"x","b":"yy"}`, []string{
			`spec.b: Too long: may not be more than 1 byte`,
			`<nil>: Invalid value: "": "spec" must validate all the schemas (allOf)`}},
		{"allOf none", spec(`"allOf":[{"required":["a"]},{"required":["b"]}]`), `{}`, []string{
			`spec.a: Required value`, `spec.b: Required value`,
			`<nil>: Invalid value: "": "spec" must validate all the schemas (allOf). None validated`}},
		{"not met", spec(`"not":{"required":["a"]}`), `{"b":"x"}`, nil},
		{"not failed", spec(`"not":{"required":["a"]}`), `{"a":"x"}`, []string{
			`<nil>: Invalid value: "": "spec" must not validate the schema (not)`}},
		{"on a field", field("a", `{"type":"string","not":{"enum":["x"]}}`), `{"a":"x"}`, []string{
			`<nil>: Invalid value: "": "spec.a" must not validate the schema (not)`}},
		{"on items", field("list", `{"type":"array","items":{"type":"string","anyOf":[{"pattern":"^a"},{"maxLength":1}]}}`), `{"list":["ab","bc"]}`, []string{
			`<nil>: Invalid value: "": "spec.list[1]" must validate at least one schema (anyOf)`,
			`spec.list[1]: Invalid value: "bc": spec.list[1] in body should match '^a'`}},
		{"nested junctors", spec(`"anyOf":[{"not":{"required":["a"]}},{"required":["b"]}]`), `{"a":"x"}`, []string{
			`<nil>: Invalid value: "": "spec" must validate at least one schema (anyOf)`,
			`<nil>: Invalid value: "": "spec" must not validate the schema (not)`}},
		// As kube-apiserver: the anyOf is checked whatever the type.
		{"int-or-string", `{"type":"object","properties":{"spec":{"type":"object","properties":{"p":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}}}}}`, `{"p":true}`, []string{
			`spec.p: Invalid value: "boolean": spec.p in body must be of type integer,string: "boolean"`,
			`<nil>: Invalid value: "": "spec.p" must validate at least one schema (anyOf)`,
			`spec.p: Invalid value: "boolean": spec.p in body must be of type integer: "boolean"`}},
		{"int-or-string without anyOf", `{"type":"object","properties":{"spec":{"type":"object","properties":{"p":{"x-kubernetes-int-or-string":true}}}}}`, `{"p":true}`, []string{
			`spec.p: Invalid value: "boolean": spec.p in body must be of type integer,string: "boolean"`}},
		{"int-or-string first in allOf", `{"type":"object","properties":{"spec":{"type":"object","properties":{"p":{"x-kubernetes-int-or-string":true,"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"pattern":"^[0-9]+%?$"}]}}}}}`, `{"p":true}`, []string{
			`spec.p: Invalid value: "boolean": spec.p in body must be of type integer,string: "boolean"`,
			`<nil>: Invalid value: "": "spec.p" must validate at least one schema (anyOf)`,
			`spec.p: Invalid value: "boolean": spec.p in body must be of type integer: "boolean"`,
			`<nil>: Invalid value: "": "spec.p" must validate all the schemas (allOf)`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := FromOpenAPI([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			v, err := NewValidator(s)
			if err != nil {
				t.Fatal(err)
			}
			obj := map[string]any{"apiVersion": "a/v1", "kind": "K", "spec": mustJSON(t, tc.spec)}
			// Both empty counts as equal, whether nil or not.
			if diff := cmp.Diff(tc.want, messages(v.Validate(status.Path{}, obj)), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMetadataRestrictions checks that a schema's restrictions of
// metadata.name and generateName land on the ObjectMeta schema.
func TestMetadataRestrictions(t *testing.T) {
	s, err := FromOpenAPI([]byte(`{"type":"object","properties":{"metadata":{"type":"object","properties":{
		"name":{"type":"string","maxLength":10,"pattern":"^a"},"generateName":{"type":"string","enum":["a-"]}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	m := s.Properties["metadata"]
	if m.Name != metaPrefix+"ObjectMeta" || m.Properties["labels"] == nil {
		t.Fatalf("metadata is not ObjectMeta: %+v", m)
	}
	name, gen := m.Properties["name"], m.Properties["generateName"]
	if name.MaxLength == nil || *name.MaxLength != 10 || name.Pattern != "^a" {
		t.Errorf("name %+v, generateName %+v", name, gen)
	}
	if diff := cmp.Diff([]any{"a-"}, gen.Enum); diff != "" {
		t.Errorf("generateName enum (-want +got):\n%s", diff)
	}
	plain, err := FromOpenAPI([]byte(`{"type":"object"}`))
	if err != nil {
		t.Fatal(err)
	}
	if n := plain.Properties["metadata"].Properties["name"]; n.MaxLength != nil || n.Pattern != "" {
		t.Errorf("restrictions leaked into another schema's ObjectMeta: %+v", n)
	}
}
