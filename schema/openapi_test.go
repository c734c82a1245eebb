package schema

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFromOpenAPIFields(t *testing.T) {
	s := sprocketSchema(t)
	spec := s.Properties["spec"]
	checks := []struct {
		name      string
		got, want any
	}{
		{"root order", s.PropertyOrder, []string{"apiVersion", "kind", "metadata", "spec", "status"}},
		{"metadata is ObjectMeta", s.Properties["metadata"].Name, metaPrefix + "ObjectMeta"},
		{"apiVersion", s.Properties["apiVersion"].Type, "string"},
		{"required", spec.Required, []string{"size"}},
		{"minimum", *spec.Properties["size"].Minimum, 1.0},
		{"maximum", *spec.Properties["size"].Maximum, 10.0},
		{"exclusive", spec.Properties["ratio"].ExclusiveMaximum && spec.Properties["ratio"].ExclusiveMinimum, true},
		{"pattern", spec.Properties["name"].Pattern, "^[a-z]+$"},
		{"lengths", [2]int64{*spec.Properties["name"].MinLength, *spec.Properties["name"].MaxLength}, [2]int64{2, 5}},
		{"enum", spec.Properties["mode"].Enum, []any{"fast", "slow"}},
		{"integer enum", spec.Properties["level"].Enum, []any{int64(1), int64(2)}},
		{"default", spec.Properties["mode"].Default, "slow"},
		{"object default", spec.Properties["config"].Default, map[string]any{}},
		{"int-or-string", spec.Properties["port"].XIntOrString, true},
		{"nullable", spec.Properties["note"].Nullable, true},
		{"items", spec.Properties["tags"].Items.Type, "string"},
		{"list type", spec.Properties["teeth"].XListType, "map"},
		{"list map keys", spec.Properties["teeth"].XListMapKeys, []string{"name"}},
		{"item default", spec.Properties["teeth"].Items.Properties["pitch"].Default, int64(5)},
		{"additionalProperties", spec.Properties["labels"].AdditionalProperties.Type, "string"},
		{"properties counts", [2]int64{*spec.Properties["labels"].MinProperties, *spec.Properties["labels"].MaxProperties}, [2]int64{1, 2}},
		{"preserve", spec.Properties["extra"].XPreserveUnknownFields, true},
		{"embedded", spec.Properties["template"].XEmbeddedResource, true},
		{"embedded gets metadata", spec.Properties["template"].Properties["metadata"].Name, metaPrefix + "ObjectMeta"},
		{"map type", spec.Properties["config"].XMapType, "atomic"},
		{"items counts", [2]int64{*spec.Properties["tags"].MinItems, *spec.Properties["tags"].MaxItems}, [2]int64{1, 3}},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestFromOpenAPIForms checks the accepted forms of the document: JSON,
// YAML and the CRD's openAPIV3Schema wrapper.
func TestFromOpenAPIForms(t *testing.T) {
	docs := map[string]string{
		"json":                 `{"type":"object","properties":{"spec":{"type":"object","properties":{"count":{"type":"integer","maximum":3}}}}}`,
		"yaml":                 "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      count: {type: integer, maximum: 3}\n",
		"wrapped":              "openAPIV3Schema:\n  type: object\n  properties:\n    spec:\n      type: object\n      properties:\n        count: {type: integer, maximum: 3}\n",
		"documenting keywords": `{"type":"object","title":"T","properties":{"spec":{"type":"object","example":{},"externalDocs":{"url":"x"},"properties":{"count":{"type":"integer","maximum":3}}}}}`,
	}
	for name, doc := range docs {
		s, err := FromOpenAPI([]byte(doc))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if n := s.Lookup("spec", "count"); n == nil || n.Type != "integer" || *n.Maximum != 3 {
			t.Errorf("%s: spec.count = %+v", name, n)
		}
	}
}

func TestFromOpenAPIErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"not a document", `[`, "neither JSON nor YAML"},
		{"not an object", `[1]`, "the document must be an object"},
		{"root not an object", `{"type":"string"}`, "the root must be of type object"},
		{"no type", `{"type":"object","properties":{"a":{}}}`, "openAPIV3Schema.properties.a: type is required"},
		{"unknown keyword", `{"type":"object","propertys":{}}`, `unknown keyword "propertys"`},
		{"ref", `{"type":"object","properties":{"a":{"$ref":"#/x"}}}`, "references are not allowed"},
		{"multipleOf zero", `{"type":"object","properties":{"a":{"type":"integer","multipleOf":0}}}`, "must be a number greater than zero"},
		{"multipleOf on a string", `{"type":"object","properties":{"a":{"type":"string","multipleOf":2}}}`, "multipleOf is only allowed for numbers"},
		{"default not a multiple", `{"type":"object","properties":{"a":{"type":"integer","multipleOf":5,"default":7}}}`, "not a multiple of 5"},
		{"uniqueItems", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"uniqueItems":true}}}`, "use x-kubernetes-list-type: set"},
		{"tuple items", `{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`, "tuples are not structural"},
		{"array without items", `{"type":"object","properties":{"a":{"type":"array"}}}`, "items is required for arrays"},
		{"properties and additionalProperties", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}},"additionalProperties":{"type":"string"}}}}`, "mutually exclusive"},
		{"additionalProperties false", `{"type":"object","additionalProperties":false}`, "false is not allowed"},
		{"multiple types", `{"type":["object","null"]}`, "must be a single type name"},
		{"unknown type", `{"type":"object","properties":{"a":{"type":"float"}}}`, `unsupported type "float"`},
		{"int-or-string with type", `{"type":"object","properties":{"a":{"type":"string","x-kubernetes-int-or-string":true}}}`, "needs an empty type"},
		{"preserve false", `{"type":"object","x-kubernetes-preserve-unknown-fields":false}`, "must be true or left out"},
		{"embedded non-object", `{"type":"object","properties":{"a":{"type":"string","x-kubernetes-embedded-resource":true}}}`, "needs type object"},
		{"minimum on a string", `{"type":"object","properties":{"a":{"type":"string","minimum":1}}}`, "only allowed for numbers"},
		{"pattern on an integer", `{"type":"object","properties":{"a":{"type":"integer","pattern":"x"}}}`, "only allowed for strings"},
		{"bad pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"(["}}}`, "not a regular expression"},
		{"negative maxLength", `{"type":"object","properties":{"a":{"type":"string","maxLength":-1}}}`, "must be a non-negative integer"},
		{"minimum above maximum", `{"type":"object","properties":{"a":{"type":"integer","minimum":3,"maximum":1}}}`, "minimum is above maximum"},
		{"default out of range", `{"type":"object","properties":{"a":{"type":"integer","maximum":1,"default":5}}}`, "above the maximum"},
		{"default of the wrong type", `{"type":"object","properties":{"a":{"type":"integer","default":"x"}}}`, "is not of type integer"},
		{"list map without keys", `{"type":"object","properties":{"a":{"type":"array","x-kubernetes-list-type":"map","items":{"type":"object","properties":{"k":{"type":"string"}}}}}}`, "listType map needs listMapKey"},
		{"list map key not required", `{"type":"object","properties":{"a":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","properties":{"k":{"type":"string"}}}}}}`, "must be a required field"},
		{"unknown list type", `{"type":"object","properties":{"a":{"type":"array","x-kubernetes-list-type":"bag","items":{"type":"string"}}}}`, "must be atomic, set or map"},
		{"required not a property", `{"type":"object","required":["x"],"properties":{"a":{"type":"string"}}}`, `required field "x" is not a property`},
		{"metadata with labels", `{"type":"object","properties":{"metadata":{"type":"object","properties":{"labels":{"type":"object"}}}}}`, "openAPIV3Schema.properties.metadata: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"},
		{"metadata with a default", `{"type":"object","properties":{"metadata":{"type":"object","default":{}}}}`, "must not specify anything other than name and generateName"},
		{"metadata name not a string", `{"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"integer"}}}}}`, "openAPIV3Schema.properties.metadata.properties.name: must be of type string"},
		{"kind not a string", `{"type":"object","properties":{"kind":{"type":"integer"}}}`, "must be of type string"},
		{"rule missing", `{"type":"object","x-kubernetes-validations":[{"message":"m"}]}`, "rule is not specified"},
		{"rule not a string", `{"type":"object","x-kubernetes-validations":[{"rule":1}]}`, "rule: must be a string"},
		{"rules not a list", `{"type":"object","x-kubernetes-validations":{"rule":"true"}}`, "must be an array of rules"},
		{"rule unknown field", `{"type":"object","x-kubernetes-validations":[{"rule":"true","level":1}]}`, "level: must be a string"},
		{"rule message on two lines", `{"type":"object","x-kubernetes-validations":[{"rule":"true","message":"a\nb"}]}`, "must not contain line breaks"},
		{"rule on two lines without message", `{"type":"object","x-kubernetes-validations":[{"rule":"true &&\ntrue"}]}`, "message must be specified if rule contains line breaks"},
		{"rule blank messageExpression", `{"type":"object","x-kubernetes-validations":[{"rule":"true","messageExpression":" "}]}`, "messageExpression must be non-empty"},
		{"rule reason", `{"type":"object","x-kubernetes-validations":[{"rule":"true","reason":"Nope"}]}`, `Unsupported value: "Nope"`},
		{"rule fieldPath", `{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-validations":[{"rule":"true","fieldPath":".b"}]}`, "must be a valid path"},
		{"rule optionalOldSelf", `{"type":"object","x-kubernetes-validations":[{"rule":"true","optionalOldSelf":"yes"}]}`, "optionalOldSelf: must be a boolean"},
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
