package schema

import (
	"os"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/status"
)

func sprocketSchema(t testing.TB) *Schema {
	t.Helper()
	data, err := os.ReadFile("testdata/sprocket.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := FromOpenAPI(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustJSON(t testing.TB, doc string) any {
	t.Helper()
	v, err := decodeJSON(doc)
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return v
}

func messages(errs status.FieldErrors) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	return out
}

// TestValidate checks every constraint against the message kube-apiserver
// gives for the same custom resource.
func TestValidate(t *testing.T) {
	v, err := NewValidator(sprocketSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		spec string // the object's spec
		want []string
	}{
		{"valid", `{"size":3,"name":"ab","mode":"fast","port":80,"tags":["a"],"labels":{"a":"b"}}`, nil},
		{"int-or-string as a string", `{"size":3,"port":"http"}`, nil},
		{"whole number as an integer", `{"size":3.0}`, nil},
		{"nullable null", `{"size":3,"note":null}`, nil},
		{"required", `{}`, []string{"spec.size: Required value"}},
		{"maximum", `{"size":11}`, []string{"spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10"}},
		{"minimum", `{"size":0}`, []string{"spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1"}},
		{"exclusive maximum", `{"size":1,"ratio":1}`, []string{"spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1"}},
		{"exclusive minimum", `{"size":1,"ratio":0}`, []string{"spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0"}},
		{"integer type", `{"size":"3"}`, []string{`spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"`}},
		{"fraction for an integer", `{"size":1.5}`, []string{`spec.size: Invalid value: "number": spec.size in body must be of type integer: "number"`,
			`<nil>: Invalid value: "": Checked value must be of type integer (default format) in spec.size`}},
		// Servers drop such nulls before validating, as kube-apiserver
		// does; its validator, given one, also checks the enum.
		{"null not nullable", `{"size":1,"mode":null,"tags":null}`, []string{
			`spec.mode: Invalid value: "null": spec.mode in body must be of type string: "null"`,
			`spec.mode: Unsupported value: null: supported values: "fast", "slow"`,
			`spec.tags: Invalid value: "null": spec.tags in body must be of type array: "null"`}},
		{"int-or-string", `{"size":1,"port":true}`, []string{`spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"`}},
		{"pattern", `{"size":1,"name":"AB"}`, []string{`spec.name: Invalid value: "AB": spec.name in body should match '^[a-z]+$'`}},
		{"maxLength", `{"size":1,"name":"abcdef"}`, []string{`spec.name: Too long: may not be more than 5 bytes`}},
		{"minLength", `{"size":1,"name":"a"}`, []string{`spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long`}},
		{"string enum", `{"size":1,"mode":"medium"}`, []string{`spec.mode: Unsupported value: "medium": supported values: "fast", "slow"`}},
		{"integer enum", `{"size":1,"level":3}`, []string{`spec.level: Unsupported value: 3: supported values: "1", "2"`}},
		{"maxItems", `{"size":1,"tags":["a","b","c","d"]}`, []string{`spec.tags: Too many: 4: must have at most 3 items`}},
		{"minItems", `{"size":1,"tags":[]}`, []string{`spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items`}},
		{"set duplicates", `{"size":1,"tags":["a","b","a"]}`, []string{`spec.tags[2]: Duplicate value: "a"`}},
		{"map duplicates", `{"size":1,"teeth":[{"name":"x"},{"name":"y"},{"name":"x","pitch":1}]}`, []string{`spec.teeth[2]: Duplicate value: {"name":"x"}`}},
		{"item required", `{"size":1,"teeth":[{"pitch":1}]}`, []string{`spec.teeth[0].name: Required value`}},
		{"item type", `{"size":1,"tags":[1]}`, []string{`spec.tags[0]: Invalid value: "integer": spec.tags[0] in body must be of type string: "integer"`}},
		{"maxProperties", `{"size":1,"labels":{"a":"1","b":"2","c":"3"}}`, []string{`spec.labels: Too many: 3: must have at most 2 items`}},
		{"minProperties", `{"size":1,"labels":{}}`, []string{`spec.labels: Invalid value: 0: spec.labels in body should have at least 1 properties`}},
		{"map values", `{"size":1,"labels":{"a":1}}`, []string{`spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"`}},
		{"preserved fields are not checked, known ones are", `{"size":1,"extra":{"x":1,"known":{"a":2}}}`, []string{
			`spec.extra.known.a: Invalid value: "integer": spec.extra.known.a in body must be of type string: "integer"`}},
		{"embedded resource", `{"size":1,"template":{"kind":"Pod","metadata":{"name":"x"}}}`, []string{`spec.template.apiVersion: Required value: must not be empty`}},
		{"embedded metadata", `{"size":1,"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":1}}}`, []string{
			`spec.template.metadata.name: Invalid value: "integer": spec.template.metadata.name in body must be of type string: "integer"`}},
		// As kube-apiserver: of a string's length and pattern, only the
		// first problem is reported.
		{"several", `{"size":11,"name":"A"}`, []string{
			`spec.name: Invalid value: "A": spec.name in body should be at least 2 chars long`,
			`spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := map[string]any{"spec": mustJSON(t, tc.spec)}
			got := messages(v.Validate(status.Path{}, obj))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

func TestValidateRoot(t *testing.T) {
	v, err := NewValidator(sprocketSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	got := messages(v.Validate(status.Path{}, map[string]any{"status": map[string]any{"ready": "yes"}}))
	want := []string{
		`status.ready: Invalid value: "string": status.ready in body must be of type boolean: "string"`,
		"spec: Required value",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q, want %q", got, want)
	}
	// The root is named "", as kube-apiserver names a default's root.
	got = messages(v.Validate(status.Path{}, []any{}))
	if len(got) != 1 || got[0] != `: Invalid value: "array":  in body must be of type object: "array"` {
		t.Errorf("array root: %q", got)
	}
}

// TestValidateAt checks a validator of a subtree names paths from where
// the subtree sits.
func TestValidateAt(t *testing.T) {
	s := sprocketSchema(t)
	v, err := NewValidator(s.Properties["spec"])
	if err != nil {
		t.Fatal(err)
	}
	got := messages(v.Validate(status.NewPath("spec"), mustJSON(t, `{"size":20}`)))
	if len(got) != 1 || got[0] != "spec.size: Invalid value: 20: spec.size in body should be less than or equal to 10" {
		t.Errorf("got %q", got)
	}
}

// TestValidateTypedSchema checks a schema built from Go types validates
// the JSON form of its values.
func TestValidateTypedSchema(t *testing.T) {
	v, err := NewValidator(mustFromType(t, widget{}))
	if err != nil {
		t.Fatal(err)
	}
	obj := mustJSON(t, `{"metadata":{"name":"w"},"spec":{"replicas":5000,"ports":[{"name":"a","port":1},{"name":"a","port":2}]},"status":{}}`)
	got := strings.Join(messages(v.Validate(status.Path{}, obj)), "\n")
	for _, want := range []string{
		"spec.replicas: Invalid value: 5000: spec.replicas in body should be less than or equal to 1000",
		`spec.ports[1]: Duplicate value: {"name":"a"}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

// TestValidateMultipleOf checks multipleOf against kube-apiserver's
// message, for integers and for decimal factors that binary floating
// point cannot hold exactly.
func TestValidateMultipleOf(t *testing.T) {
	s, err := FromOpenAPI([]byte(`{"type":"object","properties":{
		"n":{"type":"integer","multipleOf":5},
		"r":{"type":"number","multipleOf":0.01},
		"h":{"type":"number","multipleOf":2.5}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewValidator(s)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		doc  string
		want []string
	}{
		{`{"n":10}`, nil},
		{`{"n":0}`, nil},
		{`{"n":-15}`, nil},
		{`{"n":7}`, []string{"n: Invalid value: 7: n in body should be a multiple of 5"}},
		{`{"r":1.23}`, nil},
		{`{"r":0.3}`, nil},
		{`{"r":19.99}`, nil},
		{`{"r":1.234}`, []string{"r: Invalid value: 1.234: r in body should be a multiple of 0.01"}},
		{`{"h":7.5}`, nil},
		{`{"h":7}`, []string{"h: Invalid value: 7: h in body should be a multiple of 2.5"}},
		{`{"h":1e308}`, []string{"h: Invalid value: 1e+308: h in body should be a multiple of 2.5"}},
	}
	for _, tc := range tests {
		got := messages(v.Validate(status.Path{}, mustJSON(t, tc.doc)))
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s: got %q, want %q", tc.doc, got, tc.want)
		}
	}
}
