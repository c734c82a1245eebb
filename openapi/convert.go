package openapi

import (
	"reflect"
	"slices"

	"github.com/kapi-dev/kapi/schema"
)

// schemaRefPrefix is where OpenAPI v3 references to component schemas
// point.
const schemaRefPrefix = "#/components/schemas/"

// converter turns schema.Schema trees into OpenAPI v3 JSON values and
// collects the named nodes it meets as component schemas.
type converter struct {
	schemas map[string]any            // components.schemas, by name
	canon   map[string]*schema.Schema // the node each component was made from
}

func newConverter() *converter {
	return &converter{schemas: make(map[string]any), canon: make(map[string]*schema.Schema)}
}

// register makes s, a named node, a component schema unless one of that
// name exists, and returns the node the component was made from.
func (c *converter) register(s *schema.Schema) *schema.Schema {
	if canon, ok := c.canon[s.Name]; ok {
		return canon
	}
	c.canon[s.Name] = s
	c.schemas[s.Name] = nil // reserve the name before converting the body
	c.schemas[s.Name] = c.body(s)
	return s
}

// ref returns a reference to component name.
func ref(name string) map[string]any {
	return map[string]any{"$ref": schemaRefPrefix + name}
}

// node converts s where it appears as a property, item or map value: a
// named node becomes a reference to its component. As kube-apiserver does,
// a reference with its own description or default is wrapped in allOf so
// that the siblings stay valid OpenAPI.
func (c *converter) node(s *schema.Schema) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	if s.Name == "" {
		return c.body(s)
	}
	canon := c.register(s)
	out := map[string]any{}
	if s.Description != "" && s.Description != canon.Description {
		out["description"] = s.Description
	}
	if s.Default != nil {
		out["default"] = s.Default
	}
	if s.Nullable && !canon.Nullable {
		out["nullable"] = true
	}
	if len(out) == 0 {
		return ref(s.Name)
	}
	out["allOf"] = []any{ref(s.Name)}
	return out
}

// body converts s in full, whether or not it is named.
func (c *converter) body(s *schema.Schema) map[string]any {
	m := map[string]any{}
	setString(m, "type", s.Type)
	setString(m, "format", s.Format)
	setString(m, "description", s.Description)
	if s.Default != nil {
		m["default"] = s.Default
	}
	c.structure(m, s)
	constraints(m, s)
	extensions(m, s)
	c.junctors(m, s)
	return m
}

// junctors sets the value validations of m: allOf, anyOf, oneOf and
// not, as kube-apiserver publishes a CRD's. An int-or-string node gets
// the anyOf of type integer and type string it is validated with,
// unless it states it itself: as its anyOf, or when it has an anyOf of
// its own, as the first item of its allOf.
func (c *converter) junctors(m map[string]any, s *schema.Schema) {
	allOf, anyOf := s.AllOf, s.AnyOf
	if s.XIntOrString && !isIntOrString(anyOf) && (len(allOf) == 0 || !isIntOrString(allOf[0].AnyOf)) {
		intOrString := []*schema.Schema{{Type: "integer"}, {Type: "string"}}
		if len(anyOf) == 0 {
			anyOf = intOrString
		} else {
			allOf = append([]*schema.Schema{{AnyOf: intOrString}}, allOf...)
		}
	}
	c.schemaList(m, "allOf", allOf)
	c.schemaList(m, "anyOf", anyOf)
	c.schemaList(m, "oneOf", s.OneOf)
	if s.Not != nil {
		m["not"] = c.body(s.Not)
	}
}

func (c *converter) schemaList(m map[string]any, key string, list []*schema.Schema) {
	if len(list) == 0 {
		return
	}
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = c.body(s)
	}
	m[key] = out
}

// isIntOrString reports whether an anyOf is kube's int-or-string form:
// type integer, then type string, and nothing else.
func isIntOrString(anyOf []*schema.Schema) bool {
	return len(anyOf) == 2 && reflect.DeepEqual(anyOf[0], &schema.Schema{Type: "integer"}) &&
		reflect.DeepEqual(anyOf[1], &schema.Schema{Type: "string"})
}

// structure sets the properties, items and additionalProperties of m.
func (c *converter) structure(m map[string]any, s *schema.Schema) {
	if len(s.Properties) > 0 {
		// Convert in a fixed order: the first node of a name met becomes
		// its component.
		props := make(map[string]any, len(s.Properties))
		for _, name := range propertyNames(s) {
			props[name] = c.node(s.Properties[name])
		}
		m["properties"] = props
	}
	if len(s.Required) > 0 {
		m["required"] = append([]string(nil), s.Required...)
	}
	if s.Items != nil {
		m["items"] = c.node(s.Items)
	}
	if s.AdditionalProperties != nil {
		m["additionalProperties"] = c.node(s.AdditionalProperties)
	}
}

// propertyNames lists the properties of s in PropertyOrder, then any others
// sorted.
func propertyNames(s *schema.Schema) []string {
	names := make([]string, 0, len(s.Properties))
	for _, n := range s.PropertyOrder {
		if _, ok := s.Properties[n]; ok && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var rest []string
	for n := range s.Properties {
		if !slices.Contains(names, n) {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

// constraints sets the value validations of m.
func constraints(m map[string]any, s *schema.Schema) {
	if s.Minimum != nil {
		m["minimum"] = *s.Minimum
	}
	if s.Maximum != nil {
		m["maximum"] = *s.Maximum
	}
	if s.MultipleOf != nil {
		m["multipleOf"] = *s.MultipleOf
	}
	setBool(m, "exclusiveMinimum", s.ExclusiveMinimum)
	setBool(m, "exclusiveMaximum", s.ExclusiveMaximum)
	setString(m, "pattern", s.Pattern)
	if len(s.Enum) > 0 {
		m["enum"] = append([]any(nil), s.Enum...)
	}
	setCount(m, "minLength", s.MinLength)
	setCount(m, "maxLength", s.MaxLength)
	setCount(m, "minItems", s.MinItems)
	setCount(m, "maxItems", s.MaxItems)
	setCount(m, "minProperties", s.MinProperties)
	setCount(m, "maxProperties", s.MaxProperties)
	setBool(m, "nullable", s.Nullable)
}

// extensions sets the x-kubernetes extensions of m.
func extensions(m map[string]any, s *schema.Schema) {
	setString(m, "x-kubernetes-list-type", s.XListType)
	if len(s.XListMapKeys) > 0 {
		m["x-kubernetes-list-map-keys"] = append([]string(nil), s.XListMapKeys...)
	}
	setString(m, "x-kubernetes-map-type", s.XMapType)
	setBool(m, "x-kubernetes-preserve-unknown-fields", s.XPreserveUnknownFields)
	setBool(m, "x-kubernetes-embedded-resource", s.XEmbeddedResource)
	setBool(m, "x-kubernetes-int-or-string", s.XIntOrString)
	setString(m, "x-kubernetes-patch-strategy", s.XPatchStrategy)
	setString(m, "x-kubernetes-patch-merge-key", s.XPatchMergeKey)
	if len(s.XValidations) > 0 {
		// Published as kube-apiserver publishes a CRD's rules.
		m["x-kubernetes-validations"] = append([]schema.Rule(nil), s.XValidations...)
	}
}

func setString(m map[string]any, key, v string) {
	if v != "" {
		m[key] = v
	}
}

func setBool(m map[string]any, key string, v bool) {
	if v {
		m[key] = true
	}
}

func setCount(m map[string]any, key string, v *int64) {
	if v != nil {
		m[key] = *v
	}
}
