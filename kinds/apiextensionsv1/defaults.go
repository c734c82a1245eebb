package apiextensionsv1

import (
	"encoding/json"
	"reflect"

	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// defaultErrors checks the defaults of a version's schema (doc, at p)
// as kube-apiserver does once the schema is structural: each default
// must have no field the schema would prune and must validate against
// its node, each problem a cause at the node's .default (or below it),
// the messages naming the default's own fields. Defaults below
// additionalProperties are left to schema.FromOpenAPI, as kube leaves
// them (it does not look there).
func defaultErrors(doc map[string]any, p status.Path) status.FieldErrors {
	if !hasDefaults(doc) {
		return nil
	}
	b, err := json.Marshal(withoutDefaults(doc))
	if err != nil {
		return nil
	}
	sch, err := schema.FromOpenAPI(b)
	if err != nil {
		return nil // compiling the whole schema says why
	}
	var errs status.FieldErrors
	props, _ := doc["properties"].(map[string]any)
	for _, k := range sortedKeys(props) {
		sub, ok := props[k].(map[string]any)
		if !ok || topLevelMeta[k] {
			continue // refused by schemaErrors
		}
		errs = append(errs, nodeDefaultErrors(sub, sch.Properties[k], p.Child("properties").Key(k))...)
	}
	return errs
}

// topLevelMeta are the properties of a kind's root that are the
// object's own: they may not have defaults.
var topLevelMeta = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// nodeDefaultErrors checks the default of the node doc (built as s, at
// p) and those below it.
func nodeDefaultErrors(doc map[string]any, s *schema.Schema, p status.Path) status.FieldErrors {
	if s == nil {
		return nil
	}
	var errs status.FieldErrors
	if d, ok := doc["default"]; ok && d != nil {
		errs = append(errs, defaultValueErrors(d, s, p.Child("default"))...)
	}
	if items, ok := doc["items"].(map[string]any); ok {
		errs = append(errs, nodeDefaultErrors(items, s.Items, p.Child("items"))...)
	}
	props, _ := doc["properties"].(map[string]any)
	for _, k := range sortedKeys(props) {
		if sub, ok := props[k].(map[string]any); ok {
			errs = append(errs, nodeDefaultErrors(sub, s.Properties[k], p.Child("properties").Key(k))...)
		}
	}
	return errs
}

// defaultValueErrors checks one default d of the node s; p is the
// default's path.
func defaultValueErrors(d any, s *schema.Schema, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	v := normalize(d)
	pruned := normalize(d)
	s.Prune(pruned)
	if !reflect.DeepEqual(pruned, v) {
		errs = append(errs, status.InvalidValue(p, v, "must not have unknown fields"))
	}
	val, err := schema.NewValidator(s)
	if err != nil {
		return errs // compiling the whole schema says why
	}
	return append(errs, val.ValidateValue(p, v)...)
}

// normalize returns a copy of a decoded JSON value with its numbers as
// the schema package holds them: int64 for integers, float64 otherwise.
func normalize(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case float64:
		if t == float64(int64(t)) {
			return int64(t)
		}
		return t
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = normalize(x)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = normalize(x)
		}
		return out
	}
	return v
}

// hasDefaults reports whether any node of the structural part of doc
// has a default.
func hasDefaults(doc map[string]any) bool {
	if _, ok := doc["default"]; ok {
		return true
	}
	if items, ok := doc["items"].(map[string]any); ok && hasDefaults(items) {
		return true
	}
	if ap, ok := doc["additionalProperties"].(map[string]any); ok && hasDefaults(ap) {
		return true
	}
	props, _ := doc["properties"].(map[string]any)
	for _, sub := range props {
		if m, ok := sub.(map[string]any); ok && hasDefaults(m) {
			return true
		}
	}
	return false
}

// withoutDefaults copies the structural part of doc without its
// defaults, so that a schema can be built to check them against.
func withoutDefaults(doc map[string]any) map[string]any {
	out := make(map[string]any, len(doc))
	for k, v := range doc {
		switch k {
		case "default":
			continue
		case "items", "additionalProperties":
			if m, ok := v.(map[string]any); ok {
				v = withoutDefaults(m)
			}
		case "properties":
			if props, ok := v.(map[string]any); ok {
				cp := make(map[string]any, len(props))
				for name, sub := range props {
					if m, ok := sub.(map[string]any); ok {
						sub = withoutDefaults(m)
					}
					cp[name] = sub
				}
				v = cp
			}
		}
		out[k] = v
	}
	return out
}
