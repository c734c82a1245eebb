package openapi

import (
	"encoding/json"
	"testing"

	"github.com/kapi-dev/kapi/schema"
)

// TestJunctorsPublished checks a kind's value validations (allOf,
// anyOf, oneOf, not) are in its document as kube-apiserver publishes a
// CRD's, int-or-string nodes with the anyOf they are validated with:
// added when they state none, prepended to their allOf when their anyOf
// is another, and left as they are when they state it.
func TestJunctorsPublished(t *testing.T) {
	s, err := schema.FromOpenAPI([]byte(`{"type":"object","properties":{"spec":{"type":"object",
	 "properties":{
	  "a":{"type":"string"},"b":{"type":"string"},
	  "n":{"type":"integer","not":{"enum":[3]}},
	  "bare":{"x-kubernetes-int-or-string":true},
	  "stated":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},
	  "inAllOf":{"x-kubernetes-int-or-string":true,"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"pattern":"^[0-9]+%?$"}]},
	  "other":{"x-kubernetes-int-or-string":true,"anyOf":[{"maxLength":3},{"minimum":1}]}},
	 "oneOf":[{"required":["a"]},{"required":["b"]}],
	 "anyOf":[{"properties":{"n":{"minimum":1}}},{"properties":{"n":{"maximum":-5}}}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	doc := decoded(t, Kind{Group: group, Version: version, Kind: "Backup", Resource: "backups", Namespaced: true, Schema: s})
	spec := explain(doc, map[string]any{"group": group, "version": version, "kind": "Backup"}, "spec")
	intOrString := `[{"type":"integer"},{"type":"string"}]`
	tests := []struct {
		path []string
		want string
	}{
		{[]string{"oneOf"}, `[{"required":["a"]},{"required":["b"]}]`},
		{[]string{"anyOf"}, `[{"properties":{"n":{"minimum":1}}},{"properties":{"n":{"maximum":-5}}}]`},
		{[]string{"properties", "n", "not"}, `{"enum":[3]}`},
		{[]string{"properties", "bare", "anyOf"}, intOrString},
		{[]string{"properties", "bare", "allOf"}, `null`},
		{[]string{"properties", "stated", "anyOf"}, intOrString},
		{[]string{"properties", "stated", "allOf"}, `null`},
		{[]string{"properties", "inAllOf", "anyOf"}, `null`},
		{[]string{"properties", "inAllOf", "allOf"}, `[{"anyOf":` + intOrString + `},{"pattern":"^[0-9]+%?$"}]`},
		{[]string{"properties", "other", "anyOf"}, `[{"maxLength":3},{"minimum":1}]`},
		{[]string{"properties", "other", "allOf"}, `[{"anyOf":` + intOrString + `}]`},
	}
	for _, tc := range tests {
		b, err := json.Marshal(get(spec, tc.path...))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("%v = %s, want %s", tc.path, b, tc.want)
		}
	}
}
