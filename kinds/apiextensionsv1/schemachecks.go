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
	var errs status.FieldErrors
	if _, ok := doc["default"]; ok && c.noDefault != "" {
		errs = append(errs, status.ForbiddenField(p.Child("default"), "must not be set "+c.noDefault))
	}
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
