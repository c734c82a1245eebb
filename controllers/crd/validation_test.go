package crd_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
	"github.com/kapi-dev/kapi/meta"
)

// causes posts the definition d as a dry run and returns the causes of
// the 422 it gets, "reason | field | message", or nil when it is taken.
func causes(t *testing.T, e *env, d *apiextensionsv1.CustomResourceDefinition) []string {
	t.Helper()
	b, _ := json.Marshal(d)
	code, body := e.do(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All", "application/json", string(b))
	if code == http.StatusCreated {
		return nil
	}
	var st meta.Status
	if code != http.StatusUnprocessableEntity || json.Unmarshal([]byte(body), &st) != nil || st.Details == nil {
		t.Fatalf("%d %s", code, body)
	}
	out := []string{}
	for _, c := range st.Details.Causes {
		out = append(out, string(c.Type)+" | "+c.Field+" | "+c.Message)
	}
	return out
}

// withSchemas returns the junctors definition with one version per
// schema, the first stored.
func withSchemas(t *testing.T, schemas ...string) *apiextensionsv1.CustomResourceDefinition {
	d := manifest(t, junctorsCRD)
	v := d.Spec.Versions[0]
	d.Spec.Versions = nil
	for i, s := range schemas {
		vi := v
		vi.Name, vi.Storage = "v"+string(rune('1'+i)), i == 0
		vi.Schema = nil
		if s != "" {
			vi.Schema = &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: []byte(s)}
		}
		d.Spec.Versions = append(d.Spec.Versions, vi)
	}
	return d
}

// TestSchemaErrorPlaces checks a schema's problems are where
// kube-apiserver reports them: once, under spec.validation, when every
// version has the same schema; under each version's otherwise; a
// version without a schema first.
func TestSchemaErrorPlaces(t *testing.T) {
	const a = `{"type":"object","properties":{"a":{"type":"object","oneOf":[{"type":"object"}]}}}`
	const b = `{"type":"object","properties":{"b":{"type":"object","oneOf":[{"type":"object"}]}}}`
	tests := []struct {
		name    string
		schemas []string
		want    []string
	}{
		{"one version", []string{a}, []string{
			"FieldValueForbidden | spec.validation.openAPIV3Schema.properties[a].oneOf[0].type | Forbidden: must be empty to be structural"}},
		{"two the same", []string{a, a}, []string{
			"FieldValueForbidden | spec.validation.openAPIV3Schema.properties[a].oneOf[0].type | Forbidden: must be empty to be structural"}},
		{"two different", []string{a, b}, []string{
			"FieldValueForbidden | spec.versions[0].schema.openAPIV3Schema.properties[a].oneOf[0].type | Forbidden: must be empty to be structural",
			"FieldValueForbidden | spec.versions[1].schema.openAPIV3Schema.properties[b].oneOf[0].type | Forbidden: must be empty to be structural"}},
		{"one missing", []string{a, ""}, []string{
			"FieldValueRequired | spec.versions[1].schema.openAPIV3Schema | Required value",
			"FieldValueForbidden | spec.versions[0].schema.openAPIV3Schema.properties[a].oneOf[0].type | Forbidden: must be empty to be structural"}},
	}
	e := start(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, causes(t, e, withSchemas(t, tc.schemas...))); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDefaultErrors checks a schema's defaults are refused as
// kube-apiserver refuses them: fields the schema would prune, then each
// problem of the value at the default's path, its own fields named from
// the default; and any default in the root's apiVersion, kind or
// metadata.
func TestDefaultErrors(t *testing.T) {
	const p = "spec.validation.openAPIV3Schema.properties[spec].properties"
	spec := func(props string) string {
		return `{"type":"object","properties":{"spec":{"type":"object","properties":` + props + `}}}`
	}
	tests := []struct {
		name, schema string
		want         []string
	}{
		{"valid", spec(`{"n":{"type":"integer","default":3,"maximum":5}}`), nil},
		{"wrong type", spec(`{"d":{"type":"integer","default":"abc"}}`), []string{
			`FieldValueTypeInvalid | ` + p + `[d].default | Invalid value: "string":  in body must be of type integer: "string"`}},
		{"object", spec(`{"o":{"type":"object","default":{"a":"x","b":{"c":5},"z":1},"required":["q"],
			"properties":{"a":{"type":"integer"},"q":{"type":"string"},"b":{"type":"object","properties":{"c":{"type":"string"}}}}}}`), []string{
			`FieldValueInvalid | ` + p + `[o].default | Invalid value: {"a":"x","b":{"c":5},"z":1}: must not have unknown fields`,
			`FieldValueTypeInvalid | ` + p + `[o].default.a | Invalid value: "string": a in body must be of type integer: "string"`,
			`FieldValueTypeInvalid | ` + p + `[o].default.b.c | Invalid value: "integer": b.c in body must be of type string: "integer"`,
			`FieldValueRequired | ` + p + `[o].default.q | Required value`}},
		{"in items", spec(`{"l":{"type":"array","items":{"type":"object","properties":{"p":{"type":"string","default":5}}}}}`), []string{
			`FieldValueTypeInvalid | ` + p + `[l].items.properties[p].default | Invalid value: "integer":  in body must be of type string: "integer"`}},
		{"list item", spec(`{"l":{"type":"array","default":[1,"x"],"items":{"type":"integer"}}}`), []string{
			`FieldValueTypeInvalid | ` + p + `[l].default.[1] | Invalid value: "string": [1] in body must be of type integer: "string"`}},
		{"metadata", `{"type":"object","properties":{"metadata":{"type":"object","default":{}}}}`, []string{
			`FieldValueForbidden | spec.validation.openAPIV3Schema.properties[metadata].default | Forbidden: must not be set in top-level metadata`}},
		{"metadata name", `{"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string","default":"x"}}}}}`, []string{
			`FieldValueForbidden | spec.validation.openAPIV3Schema.properties[metadata].properties[name].default | Forbidden: must not be set in top-level metadata`}},
		{"kind, and a bad default", `{"type":"object","properties":{"kind":{"type":"string","default":"x"},"spec":{"type":"object","properties":{"d":{"type":"integer","default":"abc"}}}}}`, []string{
			`FieldValueTypeInvalid | ` + p + `[d].default | Invalid value: "string":  in body must be of type integer: "string"`,
			`FieldValueForbidden | spec.validation.openAPIV3Schema.properties[kind].default | Forbidden: must not be set in top-level kind`}},
	}
	e := start(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, causes(t, e, withSchemas(t, tc.schema))); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMetadataAndDocs checks what kube-apiserver says of documentation
// in a schema: metadata may not carry any (not even a description),
// while value validations may carry externalDocs and an example.
func TestMetadataAndDocs(t *testing.T) {
	tests := []struct {
		name, schema string
		want         []string
	}{
		{"metadata description", `{"type":"object","properties":{"metadata":{"type":"object","description":"d"}}}`, []string{
			"FieldValueForbidden | spec.validation.openAPIV3Schema.properties[metadata] | Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"}},
		{"metadata title", `{"type":"object","properties":{"metadata":{"type":"object","title":"t"}}}`, []string{
			"FieldValueForbidden | spec.validation.openAPIV3Schema.properties[metadata] | Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"}},
		{"externalDocs and example in anyOf", `{"type":"object","properties":{"a":{"type":"string","anyOf":[{"externalDocs":{"url":"http://x"},"example":"y","maxLength":3}]}}}`, nil},
		{"title in anyOf", `{"type":"object","properties":{"a":{"type":"string","anyOf":[{"title":"t"}]}}}`, []string{
			"FieldValueForbidden | spec.validation.openAPIV3Schema.properties[a].anyOf[0].title | Forbidden: must be empty to be structural"}},
	}
	e := start(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, causes(t, e, withSchemas(t, tc.schema))); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRuleShapeErrors checks what kube-apiserver checks of rules before
// compiling them, each problem its own cause under the rule.
func TestRuleShapeErrors(t *testing.T) {
	const p = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations"
	d := withSchemas(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}},
	 "x-kubernetes-validations":[{"rule":" "},{"rule":"true","message":" "},{"rule":"true","message":"a\nb"},
	  {"rule":"true\n","messageExpression":" "},{"rule":"true","reason":"Nope"},{"rule":"true","fieldPath":".b"},
	  {"rule":"true","fieldPath":" "},{"rule":"true","fieldPath":".a\n"},{"rule":"a ==\n b"}]}}}`)
	want := []string{
		"FieldValueRequired | " + p + "[0].rule | Required value: rule is not specified",
		`FieldValueInvalid | ` + p + `[1].message | Invalid value: " ": must be non-empty if specified`,
		`FieldValueInvalid | ` + p + `[2].message | Invalid value: "a\nb": must not contain line breaks`,
		"FieldValueRequired | " + p + "[3].messageExpression | Required value: messageExpression must be non-empty if specified",
		`FieldValueNotSupported | ` + p + `[4].reason | Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
		`FieldValueInvalid | ` + p + `[5].fieldPath | Invalid value: ".b": must be a valid path`,
		`FieldValueInvalid | ` + p + `[6].fieldPath | Invalid value: " ": must be non-empty if specified`,
		`FieldValueInvalid | ` + p + `[6].fieldPath | Invalid value: " ": must be a valid path`,
		`FieldValueInvalid | ` + p + `[7].fieldPath | Invalid value: ".a\n": must not contain line breaks`,
		`FieldValueInvalid | ` + p + `[7].fieldPath | Invalid value: ".a\n": must be a valid path`,
		"FieldValueRequired | " + p + "[8].message | Required value: message must be specified if rule contains line breaks",
	}
	if diff := cmp.Diff(want, causes(t, start(t), d)); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
}

// TestListMapErrors checks the list and map extensions are refused with
// kube-apiserver's causes, one per problem.
func TestListMapErrors(t *testing.T) {
	const p = "spec.validation.openAPIV3Schema.properties[l]"
	field := func(s string) string { return `{"type":"object","properties":{"l":` + s + `}}` }
	tests := []struct {
		name, schema string
		want         []string
	}{
		{"list type on a string", field(`{"type":"string","x-kubernetes-list-type":"set"}`), []string{
			`FieldValueInvalid | ` + p + `.type | Invalid value: "string": must be array if x-kubernetes-list-type is specified`}},
		{"map type untyped", field(`{"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-map-type":"atomic"}`), []string{
			`FieldValueRequired | ` + p + `.type | Required value: must be object if x-kubernetes-map-type is specified`}},
		{"unknown map type", field(`{"type":"object","x-kubernetes-map-type":"x"}`), []string{
			`FieldValueNotSupported | ` + p + `.x-kubernetes-map-type | Unsupported value: "x": supported values: "atomic", "granular"`}},
		{"unknown list type", field(`{"type":"array","x-kubernetes-list-type":"bag","items":{"type":"string"}}`), []string{
			`FieldValueNotSupported | ` + p + `.x-kubernetes-list-type | Unsupported value: "bag": supported values: "atomic", "set", "map"`}},
		{"set of granular objects", field(`{"type":"array","x-kubernetes-list-type":"set","items":{"type":"object","properties":{"a":{"type":"string"}}}}`), []string{
			`FieldValueInvalid | ` + p + `.items.x-kubernetes-map-type | Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`}},
		{"set of sets", field(`{"type":"array","x-kubernetes-list-type":"set","items":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}`), []string{
			`FieldValueInvalid | ` + p + `.items.x-kubernetes-list-type | Invalid value: "set": must be atomic as item of a list with x-kubernetes-list-type=set`}},
		{"nullable set items", field(`{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string","nullable":true}}`), []string{
			`FieldValueForbidden | ` + p + `.items.nullable | Forbidden: cannot be nullable when x-kubernetes-list-type is set`}},
		{"map without keys", field(`{"type":"array","x-kubernetes-list-type":"map","items":{"type":"object","properties":{"a":{"type":"string"}}}}`), []string{
			`FieldValueRequired | ` + p + `.x-kubernetes-list-map-keys | Required value: must not be empty if x-kubernetes-list-type is map`}},
		{"keys without map", field(`{"type":"array","x-kubernetes-list-map-keys":["a"],"items":{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}}}`), []string{
			`FieldValueRequired | ` + p + `.x-kubernetes-list-type | Required value: must be map if x-kubernetes-list-map-keys is non-empty`}},
		{"map of strings", field(`{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a"],"items":{"type":"string"}}`), []string{
			`FieldValueInvalid | ` + p + `.items.type | Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`}},
		{"bad keys", field(`{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a","b","a"],"items":{"type":"object","required":["a"],"properties":{"a":{"type":"object"}}}}`), []string{
			`FieldValueInvalid | ` + p + `.items.properties[a].type | Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
			`FieldValueInvalid | ` + p + `.x-kubernetes-list-map-keys | Invalid value: ["a","b","a"]: entries must all be names of item properties`,
			`FieldValueInvalid | ` + p + `.items.properties[a].type | Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
			`FieldValueInvalid | ` + p + `.x-kubernetes-list-map-keys | Invalid value: ["a","b","a"]: must not contain duplicate entries`}},
		{"key neither required nor defaulted", field(`{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a"],"items":{"type":"object","properties":{"a":{"type":"string"}}}}`), []string{
			`FieldValueRequired | ` + p + `.items.properties[a].default | Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`}},
		{"preserve false", field(`{"type":"object","x-kubernetes-preserve-unknown-fields":false}`), []string{
			`FieldValueInvalid | ` + p + `.x-kubernetes-preserve-unknown-fields | Invalid value: false: must be true or undefined`}},
	}
	e := start(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, causes(t, e, withSchemas(t, tc.schema))); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
		})
	}
}
