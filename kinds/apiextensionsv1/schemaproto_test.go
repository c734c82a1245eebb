package apiextensionsv1_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/codec/protobuf"
	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
	"github.com/kapi-dev/kapi/meta"
)

// withSchema is a definition whose only version has schema.
func withSchema(schema string) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   meta.TypeMeta{Kind: "CustomResourceDefinition", APIVersion: "apiextensions.k8s.io/v1"},
		ObjectMeta: meta.ObjectMeta{Name: "widgets.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "stable.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names:    apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}}},
	}
	if schema != "" {
		crd.Spec.Versions[0].Schema = &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: apiextensionsv1.JSONSchemaProps(schema)}
	}
	return crd
}

// throughProtobuf writes crd in protobuf and reads it back.
func throughProtobuf(t *testing.T, s *protobuf.Serializer, crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var buf bytes.Buffer
	if err := s.Encode(&buf, crd); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	var back apiextensionsv1.CustomResourceDefinition
	if _, err := s.Decode(buf.Bytes(), &back); err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return &back
}

// TestSchemaThroughProtobuf: a schema read back from protobuf is kube's
// JSON of it: fields in kube's order, unknown ones gone, JSON values
// (default, example, enum) re-encoded as kube-apiserver stores them.
func TestSchemaThroughProtobuf(t *testing.T) {
	s := protobuf.New()
	cases := []struct {
		name, in, want string
	}{
		{"fields in kube's order", `{"properties":{"a":{"type":"string"}},"type":"object","description":"d"}`,
			`{"description":"d","type":"object","properties":{"a":{"type":"string"}}}`},
		{"unknown keywords go", `{"type":"object","unknownKeyword":1}`, `{"type":"object"}`},
		{"default keys sorted, space gone", `{"type":"object","default":{ "b" : 1 , "a" : [ true , null ] }}`,
			`{"type":"object","default":{"a":[true,null],"b":1}}`},
		{"integers stay, other numbers are floats", `{"default":[1.0, 1e2, -0, 0.5, 12345678901234567890, 9007199254740993]}`,
			`{"default":[1,100,0,0.5,12345678901234567000,9007199254740993]}`},
		{"strings take encoding/json's escapes", `{"example":"<a&b>\u00e9\/"}`, `{"example":"\u003ca\u0026b\u003eé/"}`},
		{"null enum values are empty", `{"enum":[null,"x",{"b":2,"a":1}]}`, `{"enum":[null,"x",{"a":1,"b":2}]}`},
		{"null default is none", `{"type":"string","default":null}`, `{"type":"string"}`},
		{"booleans or schemas", `{"additionalProperties":false,"additionalItems":true,"properties":{"m":{"additionalProperties":{"type":"string"}}}}`,
			`{"properties":{"m":{"additionalProperties":{"type":"string"}}},"additionalProperties":false,"additionalItems":true}`},
		{"a schema or a list", `{"items":[{"type":"string"},{"type":"integer"}],"properties":{"l":{"items":{"type":"string"}}}}`,
			`{"items":[{"type":"string"},{"type":"integer"}],"properties":{"l":{"items":{"type":"string"}}}}`},
		{"dependencies", `{"dependencies":{"a":["b"],"c":{"required":["d"]}}}`, `{"dependencies":{"a":["b"],"c":{"required":["d"]}}}`},
		{"kubernetes extensions", `{"x-kubernetes-validations":[{"rule":"true","reason":"FieldValueForbidden","optionalOldSelf":false}],` +
			`"x-kubernetes-preserve-unknown-fields":false,"x-kubernetes-int-or-string":true,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"]}`,
			`{"x-kubernetes-preserve-unknown-fields":false,"x-kubernetes-int-or-string":true,"x-kubernetes-list-map-keys":["k"],` +
				`"x-kubernetes-list-type":"map","x-kubernetes-validations":[{"rule":"true","reason":"FieldValueForbidden","optionalOldSelf":false}]}`},
		{"an empty schema is an empty object", `{}`, `{}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			back := throughProtobuf(t, s, withSchema(c.in))
			if got := string(back.Spec.Versions[0].Schema.OpenAPIV3Schema); got != c.want {
				t.Errorf("schema:\n got  %s\n want %s", got, c.want)
			}
		})
	}
}

// TestNoSchemaThroughProtobuf: a version without a schema has none after
// protobuf, and one whose schema is absent keeps no empty one.
func TestNoSchemaThroughProtobuf(t *testing.T) {
	s := protobuf.New()
	crd := withSchema("")
	crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: "v2",
		Schema: &apiextensionsv1.CustomResourceValidation{}})
	back := throughProtobuf(t, s, crd)
	if diff := cmp.Diff(crd.Spec, back.Spec); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
}

// TestSchemaProtobufErrors: a schema that is not JSON has no protobuf
// form, and a JSON value in protobuf that is not JSON is refused.
func TestSchemaProtobufErrors(t *testing.T) {
	s := protobuf.New()
	err := s.Encode(&bytes.Buffer{}, withSchema(`{"type":`))
	if err == nil || !strings.Contains(err.Error(), "openAPIV3Schema") {
		t.Errorf("Encode = %v, want an openAPIV3Schema error", err)
	}
	var buf bytes.Buffer
	if err := s.Encode(&buf, withSchema(`{"default":"marker"}`)); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(buf.Bytes(), []byte(`"marker"`), []byte(`{bad:12}`), 1)
	var back apiextensionsv1.CustomResourceDefinition
	if _, err := s.Decode(bad, &back); err == nil || !strings.Contains(err.Error(), "openAPIV3Schema") {
		t.Errorf("Decode = %v, want an openAPIV3Schema error", err)
	}
}

// TestLargeSchemaThroughProtobuf: a schema of thousands of small nodes, as
// generated code writes them, decodes within the protobuf decoder's
// memory bound.
func TestLargeSchemaThroughProtobuf(t *testing.T) {
	var props []string
	for i := range 5000 {
		props = append(props, fmt.Sprintf(`"p%d":{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true}`, i))
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	back := throughProtobuf(t, protobuf.New(), withSchema(schema))
	var got struct{ Properties map[string]json.RawMessage }
	if err := json.Unmarshal(back.Spec.Versions[0].Schema.OpenAPIV3Schema, &got); err != nil || len(got.Properties) != 5000 {
		t.Errorf("%d properties, %v", len(got.Properties), err)
	}
}

// FuzzSchemaProtobuf feeds arbitrary bytes to the decoder of definitions:
// it must not panic, and what it accepts must write and read back to the
// same bytes.
func FuzzSchemaProtobuf(f *testing.F) {
	s := protobuf.New()
	for _, schema := range []string{`{"type":"object","properties":{"a":{"type":"string","default":"x","enum":["x",null]}},` +
		`"additionalProperties":false,"items":[{}],"dependencies":{"a":["b"]},"x-kubernetes-validations":[{"rule":"true"}]}`, `{}`} {
		var buf bytes.Buffer
		if err := s.Encode(&buf, withSchema(schema)); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var crd apiextensionsv1.CustomResourceDefinition
		if _, err := s.Decode(data, &crd); err != nil {
			return
		}
		var once bytes.Buffer
		if err := s.Encode(&once, &crd); err != nil {
			t.Fatalf("decoded but does not encode: %v", err)
		}
		var again apiextensionsv1.CustomResourceDefinition
		if _, err := s.Decode(once.Bytes(), &again); err != nil {
			t.Fatalf("own encoding does not decode: %v", err)
		}
		var twice bytes.Buffer
		if err := s.Encode(&twice, &again); err != nil || !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("changed on a second round trip (%v):\n% x\n% x", err, once.Bytes(), twice.Bytes())
		}
	})
}
