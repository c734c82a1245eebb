package golden

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sproto "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/kapi-dev/kapi/codec/protobuf"
	kapiext "github.com/kapi-dev/kapi/kinds/apiextensionsv1"
	"github.com/kapi-dev/kapi/meta"
)

func js(raw string) *apiextv1.JSON { return &apiextv1.JSON{Raw: []byte(raw)} }

// fullSchema sets every field of JSONSchemaProps somewhere in its tree,
// the JSON values in the form kube stores them.
func fullSchema() *apiextv1.JSONSchemaProps {
	str := apiextv1.JSONSchemaProps{Type: "string", MaxLength: ptr(int64(63)), MinLength: ptr(int64(1)), Pattern: "^[a-z]+$",
		Format: "hostname", Enum: []apiextv1.JSON{{Raw: []byte(`"a"`)}, {}, {Raw: []byte(`{"k":[1,2.5]}`)}}}
	port := apiextv1.JSONSchemaProps{Type: "object", Required: []string{"name", "port"},
		Properties: map[string]apiextv1.JSONSchemaProps{
			"name":     {Type: "string"},
			"port":     {Type: "integer", Format: "int32", Minimum: ptr(1.0), Maximum: ptr(65535.0), ExclusiveMinimum: true, ExclusiveMaximum: true},
			"protocol": {Type: "string", Default: js(`"TCP"`)},
		}}
	return &apiextv1.JSONSchemaProps{
		ID: "widget", Schema: "http://json-schema.org/draft-04/schema#", Description: "A Widget.", Type: "object", Title: "Widget",
		Example: js(`{"spec":{"color":"blue"}}`), Nullable: false,
		MaxProperties: ptr(int64(10)), MinProperties: ptr(int64(1)),
		XValidations: apiextv1.ValidationRules{
			{Rule: "self.spec.replicas <= 10", Message: "too many", MessageExpression: "'too many: ' + string(self.spec.replicas)",
				Reason: ptr(apiextv1.FieldValueForbidden), FieldPath: ".spec.replicas", OptionalOldSelf: ptr(true)},
			{Rule: "has(self.spec)"},
		},
		Properties: map[string]apiextv1.JSONSchemaProps{
			"apiVersion": {Type: "string"},
			"metadata":   {Type: "object"},
			"spec": {Type: "object", Default: js(`{"replicas":1}`),
				Properties: map[string]apiextv1.JSONSchemaProps{
					"replicas": {Type: "integer", Format: "int32", Default: js(`1`), Minimum: ptr(0.0), Maximum: ptr(1000.0), MultipleOf: ptr(1.0)},
					"color":    str,
					"tags": {Type: "array", XListType: ptr("set"), MaxItems: ptr(int64(5)), MinItems: ptr(int64(0)), UniqueItems: true,
						Items: &apiextv1.JSONSchemaPropsOrArray{Schema: &apiextv1.JSONSchemaProps{Type: "string"}}},
					"ports": {Type: "array", XListType: ptr("map"), XListMapKeys: []string{"name"},
						Items: &apiextv1.JSONSchemaPropsOrArray{Schema: &port}},
					"pair": {Type: "array", Items: &apiextv1.JSONSchemaPropsOrArray{JSONSchemas: []apiextv1.JSONSchemaProps{{Type: "string"}, {Type: "integer"}}},
						AdditionalItems: &apiextv1.JSONSchemaPropsOrBool{Allows: false}},
					"size":   {XIntOrString: true, AnyOf: []apiextv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}},
					"labels": {Type: "object", XMapType: ptr("granular"), AdditionalProperties: &apiextv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextv1.JSONSchemaProps{Type: "string"}}},
					"free":   {Type: "object", XPreserveUnknownFields: ptr(true), AdditionalProperties: &apiextv1.JSONSchemaPropsOrBool{Allows: true}},
					"closed": {Type: "object", XPreserveUnknownFields: ptr(false), Nullable: true},
					"template": {Type: "object", XEmbeddedResource: true, XPreserveUnknownFields: ptr(true),
						ExternalDocs: &apiextv1.ExternalDocumentation{Description: "docs", URL: "https://example.com"}},
					"choice": {OneOf: []apiextv1.JSONSchemaProps{{Required: []string{"a"}}, {Required: []string{"b"}}},
						AllOf: []apiextv1.JSONSchemaProps{{Not: &apiextv1.JSONSchemaProps{Required: []string{"c"}}}}},
				}},
			"status": {Type: "object", Ref: ptr("#/definitions/status"),
				PatternProperties: map[string]apiextv1.JSONSchemaProps{"^x-": {Type: "string"}},
				Dependencies: apiextv1.JSONSchemaDependencies{
					"a": {Property: []string{"b", "c"}},
					"d": {Schema: &apiextv1.JSONSchemaProps{Required: []string{"e"}}},
				},
				Definitions: apiextv1.JSONSchemaDefinitions{"status": {Type: "object", Description: "defined"}},
			},
		},
	}
}

// fullCRD sets every field of a CustomResourceDefinition.
func fullCRD() *apiextv1.CustomResourceDefinition {
	schema := fullSchema()
	return &apiextv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{Kind: "CustomResourceDefinition", APIVersion: "apiextensions.k8s.io/v1"},
		ObjectMeta: fullMeta(),
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Names: apiextv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", ShortNames: []string{"wd"},
				Kind: "Widget", ListKind: "WidgetList", Categories: []string{"all"}},
			Scope: apiextv1.NamespaceScoped,
			Versions: []apiextv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: schema},
					Subresources: &apiextv1.CustomResourceSubresources{Status: &apiextv1.CustomResourceSubresourceStatus{},
						Scale: &apiextv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.readyReplicas",
							LabelSelectorPath: ptr(".status.selector")}},
					AdditionalPrinterColumns: []apiextv1.CustomResourceColumnDefinition{
						{Name: "Color", Type: "string", JSONPath: ".spec.color"},
						{Name: "Replicas", Type: "integer", Format: "int32", Description: "wanted", Priority: 1, JSONPath: ".spec.replicas"},
					},
					SelectableFields: []apiextv1.SelectableField{{JSONPath: ".spec.color"}}},
				{Name: "v1beta1", Served: true, Deprecated: true, DeprecationWarning: ptr("use v1"),
					Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}}},
				{Name: "v0", Served: false},
			},
			Conversion: &apiextv1.CustomResourceConversion{Strategy: apiextv1.WebhookConverter, Webhook: &apiextv1.WebhookConversion{
				ClientConfig: &apiextv1.WebhookClientConfig{
					Service:  &apiextv1.ServiceReference{Namespace: "ns", Name: "conv", Path: ptr("/convert"), Port: ptr(int32(8443))},
					CABundle: []byte{0, 1, 2}},
				ConversionReviewVersions: []string{"v1", "v1beta1"}}},
			PreserveUnknownFields: false,
		},
		Status: apiextv1.CustomResourceDefinitionStatus{
			Conditions: []apiextv1.CustomResourceDefinitionCondition{
				{Type: apiextv1.NamesAccepted, Status: apiextv1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0), Reason: "NoConflicts",
					Message: "no conflicts found", ObservedGeneration: 3},
				{Type: apiextv1.Established, Status: apiextv1.ConditionFalse},
			},
			AcceptedNames:      apiextv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			StoredVersions:     []string{"v1beta1", "v1"},
			ObservedGeneration: 3,
		},
	}
}

// minimalCRD is a definition with a URL webhook and no schema.
func minimalCRD() *apiextv1.CustomResourceDefinition {
	return &apiextv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{Kind: "CustomResourceDefinition", APIVersion: "apiextensions.k8s.io/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.stable.example.com"},
		Spec: apiextv1.CustomResourceDefinitionSpec{Group: "stable.example.com", Scope: apiextv1.ClusterScoped,
			Names:    apiextv1.CustomResourceDefinitionNames{Plural: "gadgets", Kind: "Gadget"},
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}},
			Conversion: &apiextv1.CustomResourceConversion{Strategy: apiextv1.WebhookConverter, Webhook: &apiextv1.WebhookConversion{
				ClientConfig: &apiextv1.WebhookClientConfig{URL: ptr("https://conv.example.com/")}}}},
	}
}

func newCRDScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{apiextensions.AddToScheme, apiextv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	return scheme
}

// TestProtobufCRD compares the protobuf of kapi's CustomResourceDefinition
// with apiextensions-apiserver's, both ways.
func TestProtobufCRD(t *testing.T) {
	scheme := newCRDScheme(t)
	k := k8sproto.NewSerializer(scheme, scheme)
	ser := protobuf.New()
	empty := minimalCRD()
	empty.Spec.Versions = append(empty.Spec.Versions, apiextv1.CustomResourceDefinitionVersion{Name: "v2",
		Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{}}})
	for name, obj := range map[string]*apiextv1.CustomResourceDefinition{"full": fullCRD(), "minimal": minimalCRD(), "empty schema": empty} {
		t.Run(name, func(t *testing.T) {
			want := encodeWith(t, k, obj)
			kapi := fromJSON(t, obj, &kapiext.CustomResourceDefinition{}).(*kapiext.CustomResourceDefinition)
			got := kapiEncode(t, ser, kapi)
			sameBytes(t, "crd", got, want)

			back := &apiextv1.CustomResourceDefinition{}
			if _, _, err := k.Decode(got, nil, back); err != nil {
				t.Fatalf("apiextensions cannot decode kapi's bytes: %v", err)
			}
			semanticEqual(t, "kapi → apiextensions", back, obj)
			// kapi keeps the schema as kube's JSON of it.
			kapiEqual(t, "apiextensions → kapi", kapiDecode(t, ser, want, kapi), kapi)
		})
	}
}

func encodeWith(t *testing.T, k *k8sproto.Serializer, obj runtime.Object) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := k.Encode(obj, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestProtobufCRDSchemaAsKubeStores writes a schema whose JSON is not in
// kube's form (keys out of order, spaces, numbers spelled otherwise,
// unknown fields, characters encoding/json escapes): kapi's protobuf of
// it is what kube-apiserver sends for the same definition once stored,
// that is after its conversion to the internal version and back.
func TestProtobufCRDSchemaAsKubeStores(t *testing.T) {
	scheme := newCRDScheme(t)
	k := k8sproto.NewSerializer(scheme, scheme)
	const doc = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.stable.example.com"},
	"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},
	"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":
	  {"unknownKeyword": true, "type":"object","properties":{"spec":{"type":"object",
	   "default": { "z": 1.0, "a": [ 1e2, -0, 12345678901234567890, 0.1 ], "m": "<&>\u00e9" , "n": null },
	   "example": 3.50,
	   "enum": [ null, {"b":2, "a":1}, "x" ],
	   "pattern": "^<a&b>$",
	   "additionalProperties": false,
	   "properties":{"n":{"type":"integer","maximum":10,"minimum":-1.5e3}}}}}}}]}}`
	var v1obj apiextv1.CustomResourceDefinition
	if err := json.Unmarshal([]byte(doc), &v1obj); err != nil {
		t.Fatal(err)
	}
	var internal apiextensions.CustomResourceDefinition
	if err := scheme.Convert(&v1obj, &internal, nil); err != nil {
		t.Fatal(err)
	}
	var stored apiextv1.CustomResourceDefinition
	if err := scheme.Convert(&internal, &stored, nil); err != nil {
		t.Fatal(err)
	}
	stored.TypeMeta = v1obj.TypeMeta
	want := encodeWith(t, k, &stored)

	var kapi kapiext.CustomResourceDefinition
	if err := json.Unmarshal([]byte(doc), &kapi); err != nil {
		t.Fatal(err)
	}
	ser := protobuf.New()
	got := kapiEncode(t, ser, &kapi)
	sameBytes(t, "crd", got, want)

	// Read back from protobuf, the schema is kube's JSON of it.
	back := kapiDecode(t, ser, got, &kapi).(*kapiext.CustomResourceDefinition)
	wantJSON, err := json.Marshal(stored.Spec.Versions[0].Schema.OpenAPIV3Schema)
	if err != nil {
		t.Fatal(err)
	}
	if gotJSON := back.Spec.Versions[0].Schema.OpenAPIV3Schema; string(gotJSON) != string(wantJSON) {
		t.Errorf("schema read from protobuf:\n got  %s\n want %s", gotJSON, wantJSON)
	}
}

// TestProtobufCRDList compares a list of definitions.
func TestProtobufCRDList(t *testing.T) {
	scheme := newCRDScheme(t)
	k := k8sproto.NewSerializer(scheme, scheme)
	full, minimal := fullCRD(), minimalCRD()
	full.TypeMeta, minimal.TypeMeta = metav1.TypeMeta{}, metav1.TypeMeta{}
	list := &apiextv1.CustomResourceDefinitionList{TypeMeta: metav1.TypeMeta{Kind: "CustomResourceDefinitionList", APIVersion: "apiextensions.k8s.io/v1"},
		ListMeta: metav1.ListMeta{ResourceVersion: "12"}, Items: []apiextv1.CustomResourceDefinition{*full, *minimal}}
	want := encodeWith(t, k, list)
	items := []meta.Object{
		fromJSON(t, full, &kapiext.CustomResourceDefinition{}).(meta.Object),
		fromJSON(t, minimal, &kapiext.CustomResourceDefinition{}).(meta.Object),
	}
	got := kapiEncode(t, protobuf.New(), &meta.List{TypeMeta: meta.TypeMeta{Kind: "CustomResourceDefinitionList", APIVersion: "apiextensions.k8s.io/v1"},
		ListMeta: meta.ListMeta{ResourceVersion: "12"}, Items: items})
	sameBytes(t, "crd list", got, want)
}

// TestCRDMirrorsAPIExtensions holds kapi's definition types in step with
// apiextensions-apiserver's v1 types: the same fields and protobuf field
// numbers (JSONSchemaProps, kept as JSON, travels through its mirror,
// which TestProtobufCRD covers field by field).
func TestCRDMirrorsAPIExtensions(t *testing.T) {
	pairs := []struct{ ours, theirs any }{
		{kapiext.CustomResourceDefinition{}, apiextv1.CustomResourceDefinition{}},
		{kapiext.CustomResourceDefinitionSpec{}, apiextv1.CustomResourceDefinitionSpec{}},
		{kapiext.CustomResourceDefinitionNames{}, apiextv1.CustomResourceDefinitionNames{}},
		{kapiext.CustomResourceDefinitionVersion{}, apiextv1.CustomResourceDefinitionVersion{}},
		{kapiext.CustomResourceValidation{}, apiextv1.CustomResourceValidation{}},
		{kapiext.CustomResourceSubresources{}, apiextv1.CustomResourceSubresources{}},
		{kapiext.CustomResourceSubresourceStatus{}, apiextv1.CustomResourceSubresourceStatus{}},
		{kapiext.CustomResourceSubresourceScale{}, apiextv1.CustomResourceSubresourceScale{}},
		{kapiext.CustomResourceColumnDefinition{}, apiextv1.CustomResourceColumnDefinition{}},
		{kapiext.SelectableField{}, apiextv1.SelectableField{}},
		{kapiext.CustomResourceConversion{}, apiextv1.CustomResourceConversion{}},
		{kapiext.WebhookConversion{}, apiextv1.WebhookConversion{}},
		{kapiext.WebhookClientConfig{}, apiextv1.WebhookClientConfig{}},
		{kapiext.ServiceReference{}, apiextv1.ServiceReference{}},
		{kapiext.CustomResourceDefinitionStatus{}, apiextv1.CustomResourceDefinitionStatus{}},
		{kapiext.CustomResourceDefinitionCondition{}, apiextv1.CustomResourceDefinitionCondition{}},
	}
	for _, p := range pairs {
		ours, theirs := reflect.TypeOf(p.ours), reflect.TypeOf(p.theirs)
		if ours.NumField() != theirs.NumField() {
			t.Errorf("%v: %d fields, apiextensions has %d", ours, ours.NumField(), theirs.NumField())
			continue
		}
		for i := 0; i < theirs.NumField(); i++ {
			want := theirs.Field(i)
			got, ok := ours.FieldByName(want.Name)
			switch {
			case !ok:
				t.Errorf("%v.%s missing", ours, want.Name)
			case protoTag(got) != protoTag(want):
				t.Errorf("%v.%s: protobuf tag %q, want %q", ours, want.Name, protoTag(got), protoTag(want))
			}
		}
	}
}
