package schema

import "maps"

// Schema is a node of a structural schema: the OpenAPI v3 subset that
// Kubernetes requires of CustomResourceDefinitions, with its x-kubernetes
// extensions. A nil *Schema means "nothing is known".
//
// Type is one of "object", "array", "string", "integer", "number" and
// "boolean". An empty Type admits any value and appears only together with
// XPreserveUnknownFields or XIntOrString.
type Schema struct {
	// Name is the OpenAPI component name of a named type, such as
	// "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta". Publishers emit a
	// reference to a shared component for a named node instead of inlining
	// it. Empty for anonymous nodes.
	Name string

	Type        string
	Format      string // "int32", "int64", "float", "double", "byte", "date-time", ...
	Description string

	// Properties of an object, PropertyOrder their names in Go declaration
	// order (for stable output) and Required the names that must be present.
	Properties    map[string]*Schema
	PropertyOrder []string
	Required      []string

	Items                *Schema // the element schema of an array
	AdditionalProperties *Schema // the value schema of a map

	// Default is a decoded JSON value: nil, bool, int64 for integers,
	// float64 for other numbers, string, []any or map[string]any.
	Default any

	Minimum, Maximum                   *float64
	MultipleOf                         *float64 // greater than zero
	ExclusiveMinimum, ExclusiveMaximum bool
	Pattern                            string
	Enum                               []any // decoded JSON values, as Default
	MinLength, MaxLength               *int64
	MinItems, MaxItems                 *int64
	MinProperties, MaxProperties       *int64
	Nullable                           bool

	XListType              string   // x-kubernetes-list-type: "atomic", "set" or "map"
	XListMapKeys           []string // x-kubernetes-list-map-keys, for XListType "map"
	XMapType               string   // x-kubernetes-map-type: "atomic" or "granular"
	XPreserveUnknownFields bool     // x-kubernetes-preserve-unknown-fields
	XIntOrString           bool     // x-kubernetes-int-or-string
	XEmbeddedResource      bool     // x-kubernetes-embedded-resource

	// Unschematic marks the value schema that additionalProperties: true
	// stands for. kube-apiserver knows no schema for such map values, so
	// it keeps their nulls where it drops those of a declared schema,
	// even one with only x-kubernetes-preserve-unknown-fields.
	Unschematic    bool
	XPatchStrategy string // x-kubernetes-patch-strategy, e.g. "merge" or "merge,retainKeys"
	XPatchMergeKey string // x-kubernetes-patch-merge-key

	// XValidations are the node's CEL rules (x-kubernetes-validations),
	// evaluated by the server's [RuleEngine].
	XValidations []Rule

	// AllOf, AnyOf, OneOf and Not are value validations: schemas the
	// value must satisfy all of, at least one of, exactly one of, or must
	// not satisfy. As kube-apiserver requires of CustomResourceDefinitions,
	// they only constrain values ([FromOpenAPI] refuses a type, default,
	// description, nullable, additionalProperties or extension in them)
	// and every property and items they name is also in the node's
	// structural part. Defaulting, pruning and the other uses of a schema
	// ignore them; [Validator] enforces them.
	AllOf, AnyOf, OneOf []*Schema
	Not                 *Schema
}

// Provider is implemented by Go types that describe their own schema.
// [FromType] calls OpenAPISchema on a pointer to the zero value and copies
// the result, so the method may return a shared value.
type Provider interface {
	OpenAPISchema() *Schema
}

// Lookup follows a path of property names from s and returns the schema
// found there, or nil. Arrays are stepped through implicitly, as kubectl
// explain does ("spec", "ports", "name" reaches the name of a port), and a
// name that is not a property selects the value schema of a map.
func (s *Schema) Lookup(path ...string) *Schema {
	cur := s
	for _, name := range path {
		for cur != nil && cur.Type == "array" {
			cur = cur.Items
		}
		if cur == nil {
			return nil
		}
		next, ok := cur.Properties[name]
		if !ok {
			next = cur.AdditionalProperties
		}
		cur = next
	}
	return cur
}

// DeepCopy returns a copy of s that shares no memory with it.
func (s *Schema) DeepCopy() *Schema {
	if s == nil {
		return nil
	}
	out := *s
	if s.Properties != nil {
		out.Properties = make(map[string]*Schema, len(s.Properties))
		for k, v := range s.Properties {
			out.Properties[k] = v.DeepCopy()
		}
	}
	out.PropertyOrder = cloneSlice(s.PropertyOrder)
	out.Required = cloneSlice(s.Required)
	out.Items = s.Items.DeepCopy()
	out.AdditionalProperties = s.AdditionalProperties.DeepCopy()
	out.Default = copyJSON(s.Default)
	if s.Enum != nil {
		out.Enum = make([]any, len(s.Enum))
		for i, v := range s.Enum {
			out.Enum[i] = copyJSON(v)
		}
	}
	out.Minimum = clonePtr(s.Minimum)
	out.Maximum = clonePtr(s.Maximum)
	out.MultipleOf = clonePtr(s.MultipleOf)
	out.MinLength = clonePtr(s.MinLength)
	out.MaxLength = clonePtr(s.MaxLength)
	out.MinItems = clonePtr(s.MinItems)
	out.MaxItems = clonePtr(s.MaxItems)
	out.MinProperties = clonePtr(s.MinProperties)
	out.MaxProperties = clonePtr(s.MaxProperties)
	out.XListMapKeys = cloneSlice(s.XListMapKeys)
	out.AllOf = copySchemas(s.AllOf)
	out.AnyOf = copySchemas(s.AnyOf)
	out.OneOf = copySchemas(s.OneOf)
	out.Not = s.Not.DeepCopy()
	if s.XValidations != nil {
		out.XValidations = make([]Rule, len(s.XValidations))
		for i, r := range s.XValidations {
			r.OptionalOldSelf = clonePtr(r.OptionalOldSelf)
			out.XValidations[i] = r
		}
	}
	return &out
}

func copySchemas(list []*Schema) []*Schema {
	if list == nil {
		return nil
	}
	out := make([]*Schema, len(list))
	for i, s := range list {
		out[i] = s.DeepCopy()
	}
	return out
}

func cloneSlice[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// copyJSON deep-copies a decoded JSON value.
func copyJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := maps.Clone(t)
		for k, e := range m {
			m[k] = copyJSON(e)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = copyJSON(e)
		}
		return s
	default:
		return v
	}
}
