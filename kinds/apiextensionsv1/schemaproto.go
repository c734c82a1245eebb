package apiextensionsv1

import (
	"encoding/json"
	"errors"
	"fmt"

	kjson "sigs.k8s.io/json"

	"github.com/kapi-dev/kapi/codec/protobuf"
)

// A schema is kept as JSON, but travels in protobuf as
// apiextensions.k8s.io/v1 JSONSchemaProps: the typed mirror below, field
// for field in kube's order, with its JSON names and protobuf field
// numbers. Going through it gives the schema kube's JSON form, from
// JSON (see JSONSchemaProps.UnmarshalJSON) as from protobuf: fields in
// kube's order, JSON values (default, example, enum) as kube re-encodes
// them.

var _ protobuf.Proxied = (*JSONSchemaProps)(nil)

// NewProtobufProxy returns an empty typed schema.
func (*JSONSchemaProps) NewProtobufProxy() any { return &schemaProps{} }

// ToProtobufProxy reads the schema into its typed form; an absent schema
// has none.
func (p *JSONSchemaProps) ToProtobufProxy() (any, error) {
	if len(*p) == 0 {
		return nil, nil
	}
	s := &schemaProps{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(*p, s); err != nil {
		return nil, fmt.Errorf("openAPIV3Schema: %w", err)
	}
	return s, nil
}

// FromProtobufProxy keeps the typed schema read from protobuf as JSON.
func (p *JSONSchemaProps) FromProtobufProxy(proxy any) error {
	b, err := json.Marshal(proxy)
	if err != nil {
		return fmt.Errorf("openAPIV3Schema: %w", err)
	}
	*p = b
	return nil
}

// schemaProps is apiextensions.k8s.io/v1 JSONSchemaProps.
type schemaProps struct {
	ID                     string                  `json:"id,omitempty" protobuf:"bytes,1,opt,name=id"`
	Schema                 string                  `json:"$schema,omitempty" protobuf:"bytes,2,opt,name=schema"`
	Ref                    *string                 `json:"$ref,omitempty" protobuf:"bytes,3,opt,name=ref"`
	Description            string                  `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	Type                   string                  `json:"type,omitempty" protobuf:"bytes,5,opt,name=type"`
	Format                 string                  `json:"format,omitempty" protobuf:"bytes,6,opt,name=format"`
	Title                  string                  `json:"title,omitempty" protobuf:"bytes,7,opt,name=title"`
	Default                *jsonValue              `json:"default,omitempty" protobuf:"bytes,8,opt,name=default"`
	Maximum                *float64                `json:"maximum,omitempty" protobuf:"bytes,9,opt,name=maximum"`
	ExclusiveMaximum       bool                    `json:"exclusiveMaximum,omitempty" protobuf:"bytes,10,opt,name=exclusiveMaximum"`
	Minimum                *float64                `json:"minimum,omitempty" protobuf:"bytes,11,opt,name=minimum"`
	ExclusiveMinimum       bool                    `json:"exclusiveMinimum,omitempty" protobuf:"bytes,12,opt,name=exclusiveMinimum"`
	MaxLength              *int64                  `json:"maxLength,omitempty" protobuf:"bytes,13,opt,name=maxLength"`
	MinLength              *int64                  `json:"minLength,omitempty" protobuf:"bytes,14,opt,name=minLength"`
	Pattern                string                  `json:"pattern,omitempty" protobuf:"bytes,15,opt,name=pattern"`
	MaxItems               *int64                  `json:"maxItems,omitempty" protobuf:"bytes,16,opt,name=maxItems"`
	MinItems               *int64                  `json:"minItems,omitempty" protobuf:"bytes,17,opt,name=minItems"`
	UniqueItems            bool                    `json:"uniqueItems,omitempty" protobuf:"bytes,18,opt,name=uniqueItems"`
	MultipleOf             *float64                `json:"multipleOf,omitempty" protobuf:"bytes,19,opt,name=multipleOf"`
	Enum                   []jsonValue             `json:"enum,omitempty" protobuf:"bytes,20,rep,name=enum"`
	MaxProperties          *int64                  `json:"maxProperties,omitempty" protobuf:"bytes,21,opt,name=maxProperties"`
	MinProperties          *int64                  `json:"minProperties,omitempty" protobuf:"bytes,22,opt,name=minProperties"`
	Required               []string                `json:"required,omitempty" protobuf:"bytes,23,rep,name=required"`
	Items                  *schemaOrArray          `json:"items,omitempty" protobuf:"bytes,24,opt,name=items"`
	AllOf                  []schemaProps           `json:"allOf,omitempty" protobuf:"bytes,25,rep,name=allOf"`
	OneOf                  []schemaProps           `json:"oneOf,omitempty" protobuf:"bytes,26,rep,name=oneOf"`
	AnyOf                  []schemaProps           `json:"anyOf,omitempty" protobuf:"bytes,27,rep,name=anyOf"`
	Not                    *schemaProps            `json:"not,omitempty" protobuf:"bytes,28,opt,name=not"`
	Properties             map[string]schemaProps  `json:"properties,omitempty" protobuf:"bytes,29,rep,name=properties"`
	AdditionalProperties   *schemaOrBool           `json:"additionalProperties,omitempty" protobuf:"bytes,30,opt,name=additionalProperties"`
	PatternProperties      map[string]schemaProps  `json:"patternProperties,omitempty" protobuf:"bytes,31,rep,name=patternProperties"`
	Dependencies           map[string]schemaOrList `json:"dependencies,omitempty" protobuf:"bytes,32,opt,name=dependencies"`
	AdditionalItems        *schemaOrBool           `json:"additionalItems,omitempty" protobuf:"bytes,33,opt,name=additionalItems"`
	Definitions            map[string]schemaProps  `json:"definitions,omitempty" protobuf:"bytes,34,opt,name=definitions"`
	ExternalDocs           *externalDocs           `json:"externalDocs,omitempty" protobuf:"bytes,35,opt,name=externalDocs"`
	Example                *jsonValue              `json:"example,omitempty" protobuf:"bytes,36,opt,name=example"`
	Nullable               bool                    `json:"nullable,omitempty" protobuf:"bytes,37,opt,name=nullable"`
	XPreserveUnknownFields *bool                   `json:"x-kubernetes-preserve-unknown-fields,omitempty" protobuf:"bytes,38,opt,name=xKubernetesPreserveUnknownFields"`
	XEmbeddedResource      bool                    `json:"x-kubernetes-embedded-resource,omitempty" protobuf:"bytes,39,opt,name=xKubernetesEmbeddedResource"`
	XIntOrString           bool                    `json:"x-kubernetes-int-or-string,omitempty" protobuf:"bytes,40,opt,name=xKubernetesIntOrString"`
	XListMapKeys           []string                `json:"x-kubernetes-list-map-keys,omitempty" protobuf:"bytes,41,rep,name=xKubernetesListMapKeys"`
	XListType              *string                 `json:"x-kubernetes-list-type,omitempty" protobuf:"bytes,42,opt,name=xKubernetesListType"`
	XMapType               *string                 `json:"x-kubernetes-map-type,omitempty" protobuf:"bytes,43,opt,name=xKubernetesMapType"`
	XValidations           []validationRule        `json:"x-kubernetes-validations,omitempty" protobuf:"bytes,44,rep,name=xKubernetesValidations"`
}

// validationRule is apiextensions.k8s.io/v1 ValidationRule.
type validationRule struct {
	Rule              string  `json:"rule" protobuf:"bytes,1,opt,name=rule"`
	Message           string  `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	MessageExpression string  `json:"messageExpression,omitempty" protobuf:"bytes,3,opt,name=messageExpression"`
	Reason            *string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	FieldPath         string  `json:"fieldPath,omitempty" protobuf:"bytes,5,opt,name=fieldPath"`
	OptionalOldSelf   *bool   `json:"optionalOldSelf,omitempty" protobuf:"bytes,6,opt,name=optionalOldSelf"`
}

// externalDocs is apiextensions.k8s.io/v1 ExternalDocumentation.
type externalDocs struct {
	Description string `json:"description,omitempty" protobuf:"bytes,1,opt,name=description"`
	URL         string `json:"url,omitempty" protobuf:"bytes,2,opt,name=url"`
}

// schemaOrArray is JSONSchemaPropsOrArray: in JSON a schema or a list of
// them.
type schemaOrArray struct {
	Schema      *schemaProps  `protobuf:"bytes,1,opt,name=schema"`
	JSONSchemas []schemaProps `protobuf:"bytes,2,rep,name=jSONSchemas"`
}

// MarshalJSON writes the list when there is one, else the schema.
func (s schemaOrArray) MarshalJSON() ([]byte, error) {
	if len(s.JSONSchemas) > 0 {
		return json.Marshal(s.JSONSchemas)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON reads an object as the schema, an array as the list, and
// anything else as neither, as kube does.
func (s *schemaOrArray) UnmarshalJSON(b []byte) error {
	*s = schemaOrArray{}
	switch firstByte(b) {
	case '{':
		s.Schema = &schemaProps{}
		return kjson.UnmarshalCaseSensitivePreserveInts(b, s.Schema)
	case '[':
		return kjson.UnmarshalCaseSensitivePreserveInts(b, &s.JSONSchemas)
	}
	return nil
}

// schemaOrBool is JSONSchemaPropsOrBool: in JSON a boolean or a schema
// (which allows).
type schemaOrBool struct {
	Allows bool         `protobuf:"varint,1,opt,name=allows"`
	Schema *schemaProps `protobuf:"bytes,2,opt,name=schema"`
}

// MarshalJSON writes the schema when there is one, else the boolean.
func (s schemaOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return json.Marshal(s.Allows)
}

// UnmarshalJSON reads true, false or a schema.
func (s *schemaOrBool) UnmarshalJSON(b []byte) error {
	switch {
	case firstByte(b) == '{':
		*s = schemaOrBool{Allows: true, Schema: &schemaProps{}}
		return kjson.UnmarshalCaseSensitivePreserveInts(b, s.Schema)
	case string(b) == "true":
		*s = schemaOrBool{Allows: true}
	case string(b) == "false":
		*s = schemaOrBool{}
	default:
		return errors.New("boolean or JSON schema expected")
	}
	return nil
}

// schemaOrList is JSONSchemaPropsOrStringArray: in JSON a schema or a
// list of property names.
type schemaOrList struct {
	Schema   *schemaProps `protobuf:"bytes,1,opt,name=schema"`
	Property []string     `protobuf:"bytes,2,rep,name=property"`
}

// MarshalJSON writes the names when there are some, else the schema, else
// null.
func (s schemaOrList) MarshalJSON() ([]byte, error) {
	switch {
	case len(s.Property) > 0:
		return json.Marshal(s.Property)
	case s.Schema != nil:
		return json.Marshal(s.Schema)
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads an object as the schema, an array as the names, and
// anything else as neither.
func (s *schemaOrList) UnmarshalJSON(b []byte) error {
	*s = schemaOrList{}
	switch firstByte(b) {
	case '{':
		s.Schema = &schemaProps{}
		return kjson.UnmarshalCaseSensitivePreserveInts(b, s.Schema)
	case '[':
		return kjson.UnmarshalCaseSensitivePreserveInts(b, &s.Property)
	}
	return nil
}

// firstByte is the first byte of a JSON value of more than one byte, as
// kube's decoders look at it.
func firstByte(b []byte) byte {
	if len(b) > 1 {
		return b[0]
	}
	return 0
}

// jsonValue is apiextensions.k8s.io/v1 JSON: any JSON value, as raw
// bytes; null is no bytes.
type jsonValue struct {
	Raw []byte `protobuf:"bytes,1,opt,name=raw"`
}

// MarshalJSON writes the value, or null.
func (v jsonValue) MarshalJSON() ([]byte, error) {
	if len(v.Raw) == 0 {
		return []byte("null"), nil
	}
	return v.Raw, nil
}

// UnmarshalJSON keeps the value as kube stores it: kube-apiserver reads
// it into a Go value (integers that fit as int64, other numbers as
// float64) and writes it back with encoding/json, so keys come sorted,
// space goes, and numbers and strings take encoding/json's spelling.
func (v *jsonValue) UnmarshalJSON(b []byte) error {
	v.Raw = nil
	var x any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, &x); err != nil || x == nil {
		return err
	}
	raw, err := json.Marshal(x)
	v.Raw = raw
	return err
}
