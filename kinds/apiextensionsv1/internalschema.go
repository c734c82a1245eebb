package apiextensionsv1

import (
	"encoding/json"

	kjson "sigs.k8s.io/json"
)

// internalSchema is kube's internal JSONSchemaProps as its JSON encodes
// in a message: Go's field names in the internal type's order (nullable
// after type), nothing omitted, JSON values as kube re-encodes them.
type internalSchema struct {
	ID                     string
	Schema                 string
	Ref                    *string
	Description            string
	Type                   string
	Nullable               bool
	Format                 string
	Title                  string
	Default                *json.RawMessage
	Maximum                *float64
	ExclusiveMaximum       bool
	Minimum                *float64
	ExclusiveMinimum       bool
	MaxLength              *int64
	MinLength              *int64
	Pattern                string
	MaxItems               *int64
	MinItems               *int64
	UniqueItems            bool
	MultipleOf             *float64
	Enum                   []json.RawMessage
	MaxProperties          *int64
	MinProperties          *int64
	Required               []string
	Items                  *internalSchemaOrArray
	AllOf                  []internalSchema
	OneOf                  []internalSchema
	AnyOf                  []internalSchema
	Not                    *internalSchema
	Properties             map[string]internalSchema
	AdditionalProperties   *internalSchemaOrBool
	PatternProperties      map[string]internalSchema
	Dependencies           map[string]internalSchemaOrList
	AdditionalItems        *internalSchemaOrBool
	Definitions            map[string]internalSchema
	ExternalDocs           *internalExternalDocs
	Example                *json.RawMessage
	XPreserveUnknownFields *bool
	XEmbeddedResource      bool
	XIntOrString           bool
	XListMapKeys           []string
	XListType              *string
	XMapType               *string
	XValidations           []internalRule
}

type internalSchemaOrArray struct {
	Schema      *internalSchema
	JSONSchemas []internalSchema
}

type internalSchemaOrBool struct {
	Allows bool
	Schema *internalSchema
}

type internalSchemaOrList struct {
	Schema   *internalSchema
	Property []string
}

type internalExternalDocs struct {
	Description string
	URL         string
}

type internalRule struct {
	Rule              string
	Message           string
	MessageExpression string
	Reason            *string
	FieldPath         string
	OptionalOldSelf   *bool
}

// internalSchemaOf reads a version's schema into kube's internal form;
// nil when there is none or it cannot be read.
func internalSchemaOf(raw JSONSchemaProps) *internalSchema {
	if len(raw) == 0 {
		return nil
	}
	s := &schemaProps{}
	if kjson.UnmarshalCaseSensitivePreserveInts(raw, s) != nil {
		return nil
	}
	out := toInternalSchema(s)
	return &out
}

func toInternalSchema(s *schemaProps) internalSchema {
	out := internalSchema{
		ID: s.ID, Schema: s.Schema, Ref: s.Ref, Description: s.Description, Type: s.Type, Nullable: s.Nullable,
		Format: s.Format, Title: s.Title, Default: rawValue(s.Default),
		Maximum: s.Maximum, ExclusiveMaximum: s.ExclusiveMaximum, Minimum: s.Minimum, ExclusiveMinimum: s.ExclusiveMinimum,
		MaxLength: s.MaxLength, MinLength: s.MinLength, Pattern: s.Pattern, MaxItems: s.MaxItems, MinItems: s.MinItems,
		UniqueItems: s.UniqueItems, MultipleOf: s.MultipleOf, MaxProperties: s.MaxProperties, MinProperties: s.MinProperties,
		Required: s.Required, AllOf: internalList(s.AllOf), OneOf: internalList(s.OneOf), AnyOf: internalList(s.AnyOf),
		Properties: internalMap(s.Properties), PatternProperties: internalMap(s.PatternProperties),
		AdditionalProperties: internalOrBool(s.AdditionalProperties), AdditionalItems: internalOrBool(s.AdditionalItems),
		Definitions: internalMap(s.Definitions), Example: rawValue(s.Example),
		XPreserveUnknownFields: s.XPreserveUnknownFields, XEmbeddedResource: s.XEmbeddedResource,
		XIntOrString: s.XIntOrString, XListMapKeys: s.XListMapKeys, XListType: s.XListType, XMapType: s.XMapType,
	}
	if s.Enum != nil {
		out.Enum = make([]json.RawMessage, len(s.Enum))
		for i, e := range s.Enum {
			out.Enum[i] = json.RawMessage(e.orNull())
		}
	}
	if it := s.Items; it != nil {
		out.Items = &internalSchemaOrArray{Schema: internalPtr(it.Schema), JSONSchemas: internalList(it.JSONSchemas)}
	}
	out.Not = internalPtr(s.Not)
	if s.Dependencies != nil {
		out.Dependencies = make(map[string]internalSchemaOrList, len(s.Dependencies))
		for k, d := range s.Dependencies {
			out.Dependencies[k] = internalSchemaOrList{Schema: internalPtr(d.Schema), Property: d.Property}
		}
	}
	if d := s.ExternalDocs; d != nil {
		out.ExternalDocs = &internalExternalDocs{Description: d.Description, URL: d.URL}
	}
	if s.XValidations != nil {
		out.XValidations = make([]internalRule, len(s.XValidations))
		for i, r := range s.XValidations {
			out.XValidations[i] = internalRule(r)
		}
	}
	return out
}

// rawValue is a JSON value of the schema as the internal form holds it:
// absent, or kube's re-encoding.
func rawValue(v *jsonValue) *json.RawMessage {
	if v == nil || len(v.Raw) == 0 {
		return nil
	}
	raw := json.RawMessage(v.Raw)
	return &raw
}

// orNull is the value's JSON, null when it has none.
func (v jsonValue) orNull() []byte {
	if len(v.Raw) == 0 {
		return []byte("null")
	}
	return v.Raw
}

func internalPtr(s *schemaProps) *internalSchema {
	if s == nil {
		return nil
	}
	out := toInternalSchema(s)
	return &out
}

func internalList(in []schemaProps) []internalSchema {
	if in == nil {
		return nil
	}
	out := make([]internalSchema, len(in))
	for i := range in {
		out[i] = toInternalSchema(&in[i])
	}
	return out
}

func internalMap(in map[string]schemaProps) map[string]internalSchema {
	if in == nil {
		return nil
	}
	out := make(map[string]internalSchema, len(in))
	for k, s := range in {
		out[k] = toInternalSchema(&s)
	}
	return out
}

func internalOrBool(in *schemaOrBool) *internalSchemaOrBool {
	if in == nil {
		return nil
	}
	return &internalSchemaOrBool{Allows: in.Allows, Schema: internalPtr(in.Schema)}
}
