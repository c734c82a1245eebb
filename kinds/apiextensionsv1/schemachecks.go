package apiextensionsv1

import (
	"encoding/json"

	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// schemaErrors are kube-apiserver's checks of a version's schema (doc,
// at p) beside its structural ones, in its order, node by node: a
// default where none may be (in the root's apiVersion, kind and
// metadata), the nodes below (map values, properties by name, items),
// then the node's list and map extensions and the shape of its rules.
func schemaErrors(doc map[string]any, p status.Path) status.FieldErrors {
	var sch *schema.Schema
	if b, err := json.Marshal(withoutRules(doc)); err == nil {
		sch, _ = schema.FromOpenAPI(b) // nil: fieldPaths are not checked
	}
	return (&schemaCheck{}).node(doc, sch, p, true)
}

// schemaCheck carries what the nodes above say of a node.
type schemaCheck struct {
	noDefault string // why a default may not be here, when it may not
}

func (c *schemaCheck) node(doc map[string]any, s *schema.Schema, p status.Path, root bool) status.FieldErrors {
	errs := c.keywordErrors(doc, p)
	if sub, ok := doc["additionalProperties"].(map[string]any); ok {
		errs = append(errs, c.node(sub, schemaOf(s, "additionalProperties"), p.Child("additionalProperties"), false)...)
	}
	props, _ := doc["properties"].(map[string]any)
	for _, k := range sortedKeys(props) {
		sub, ok := props[k].(map[string]any)
		if !ok {
			continue
		}
		cc := c
		if root && topLevelMeta[k] {
			cc = &schemaCheck{noDefault: "in top-level " + k}
		}
		var ps *schema.Schema
		if s != nil {
			ps = s.Properties[k]
		}
		errs = append(errs, cc.node(sub, ps, p.Child("properties").Key(k), false)...)
	}
	errs = append(errs, c.junctorNodes(doc, p)...)
	if sub, ok := doc["items"].(map[string]any); ok {
		errs = append(errs, c.node(sub, schemaOf(s, "items"), p.Child("items"), false)...)
	}
	errs = append(errs, listMapErrors(doc, p)...)
	rules, _ := doc["x-kubernetes-validations"].([]any)
	for i, r := range rules {
		if m, ok := r.(map[string]any); ok {
			errs = append(errs, ruleShape(m, s, p.Child("x-kubernetes-validations").Index(i))...)
		}
	}
	return errs
}

func schemaOf(s *schema.Schema, key string) *schema.Schema {
	switch {
	case s == nil:
		return nil
	case key == "items":
		return s.Items
	}
	return s.AdditionalProperties
}

// openAPITypes are the types a node may have, as kube lists them.
var openAPITypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// unsupportedKeywords are what kube refuses in a node, each with its
// message, in its order (after the type and the default).
// A keyed one is refused whatever its value.
var unsupportedKeywords = []struct {
	key, msg string
	keyed    bool
}{
	{"id", "id is not supported", false},
	{"additionalItems", "additionalItems is not supported", true},
	{"patternProperties", "patternProperties is not supported", false},
	{"definitions", "definitions is not supported", false},
	{"dependencies", "dependencies is not supported", true},
	{"$ref", "$ref is not supported", true},
}

// keywordErrors are kube's checks of one node's own keywords: its type
// one of openAPITypes, a default where one may be, no unsupported
// keyword, no null type, items one schema, no uniqueItems, and not both
// properties and additionalProperties.
func (c *schemaCheck) keywordErrors(doc map[string]any, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	typ, _ := doc["type"].(string)
	if typ != "" && !contains(openAPITypes, typ) {
		errs = append(errs, status.NotSupported(p.Child("type"), typ, openAPITypes))
	}
	if _, ok := doc["default"]; ok && c.noDefault != "" {
		errs = append(errs, status.ForbiddenField(p.Child("default"), "must not be set "+c.noDefault))
	}
	for _, k := range unsupportedKeywords {
		if v, ok := doc[k.key]; ok && (k.keyed || present(v)) {
			errs = append(errs, status.ForbiddenField(p.Child(k.key), k.msg))
		}
	}
	if typ == "null" {
		errs = append(errs, status.ForbiddenField(p.Child("type"), "type cannot be set to null, use nullable as an alternative"))
	}
	if list, ok := doc["items"].([]any); ok && len(list) > 0 {
		errs = append(errs, status.ForbiddenField(p.Child("items"), "items must be a schema object and not an array"))
	}
	if doc["uniqueItems"] == true {
		errs = append(errs, status.ForbiddenField(p.Child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	props, _ := doc["properties"].(map[string]any)
	if ap, ok := doc["additionalProperties"]; ok && ap != true && len(props) > 0 {
		errs = append(errs, status.ForbiddenField(p.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
	}
	return errs
}

// present reports whether a keyword's value is set as kube's typed form
// holds it: an empty map or list is not.
func present(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case map[string]any:
		return len(t) > 0
	case []any:
		return len(t) > 0
	case string:
		return t != ""
	}
	return true
}

// junctorNodes checks the schemas of not, allOf, oneOf and anyOf as
// nodes too, as kube does.
func (c *schemaCheck) junctorNodes(doc map[string]any, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if sub, ok := doc["not"].(map[string]any); ok {
		errs = append(errs, c.node(sub, nil, p.Child("not"), false)...)
	}
	for _, j := range []string{"allOf", "oneOf", "anyOf"} {
		list, _ := doc[j].([]any)
		for i, x := range list {
			if sub, ok := x.(map[string]any); ok {
				errs = append(errs, c.node(sub, nil, p.Child(j).Index(i), false)...)
			}
		}
	}
	return errs
}

// unsupportedKeyword is why kube-apiserver cannot make its structural form
// of a schema: a keyword it does not support somewhere in it, or
// x-kubernetes-preserve-unknown-fields false; "" when there is none.
func unsupportedKeyword(doc map[string]any) string {
	for _, k := range []struct{ key, name string }{{"id", "id"}, {"$schema", "schema"}, {"$ref", "$ref"},
		{"patternProperties", "patternProperties"}, {"dependencies", "dependencies"}, {"definitions", "definitions"}} {
		if present(doc[k.key]) {
			return "OpenAPIV3Schema '" + k.name + "' is not supported"
		}
	}
	if _, ok := doc["additionalItems"]; ok {
		return "OpenAPIV3Schema 'additionalItems' is not supported"
	}
	if doc["x-kubernetes-preserve-unknown-fields"] == false {
		return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
	}
	if _, ok := doc["items"].([]any); ok {
		return "OpenAPIV3Schema 'items' must be a schema, but is an array"
	}
	var subs []map[string]any
	for _, k := range []string{"items", "additionalProperties", "not"} {
		if m, ok := doc[k].(map[string]any); ok {
			subs = append(subs, m)
		}
	}
	for _, j := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := doc[j].([]any)
		for _, x := range list {
			if m, ok := x.(map[string]any); ok {
				subs = append(subs, m)
			}
		}
	}
	props, _ := doc["properties"].(map[string]any)
	for _, k := range sortedKeys(props) {
		if m, ok := props[k].(map[string]any); ok {
			subs = append(subs, m)
		}
	}
	for _, sub := range subs {
		if why := unsupportedKeyword(sub); why != "" {
			return why
		}
	}
	return ""
}
