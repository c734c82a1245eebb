package apiextensionsv1

import (
	"regexp"
	"sort"

	"github.com/kapi-dev/kapi/status"
)

// Checking that a schema is structural, with the paths and messages
// kube-apiserver gives (its structural schema validation): the checks
// run on the schema as written, before it is compiled.

type level int

const (
	rootLevel level = iota
	itemLevel
	fieldLevel
)

// structuralErrors lists what makes the schema at p non-structural.
func structuralErrors(node map[string]any, p status.Path) status.FieldErrors {
	errs := nodeErrors(node, rootLevel, p)
	errs = append(errs, completenessErrors(node, p)...)
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}

func nodeErrors(node map[string]any, lvl level, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	typ, _ := node["type"].(string)
	intOrString := node["x-kubernetes-int-or-string"] == true
	preserve := node["x-kubernetes-preserve-unknown-fields"] == true
	embedded := node["x-kubernetes-embedded-resource"] == true
	if typ == "array" && node["items"] == nil {
		errs = append(errs, status.Required(p.Child("items"), "must be specified"))
	}
	if items, ok := node["items"].(map[string]any); ok {
		errs = append(errs, nodeErrors(items, itemLevel, p.Child("items"))...)
	}
	props, _ := node["properties"].(map[string]any)
	for _, k := range sortedKeys(props) {
		if sub, ok := props[k].(map[string]any); ok {
			if k == "metadata" && (lvl == rootLevel || embedded) {
				errs = append(errs, metadataErrors(sub, lvl, p.Child("properties").Key(k))...)
				continue
			}
			errs = append(errs, nodeErrors(sub, fieldLevel, p.Child("properties").Key(k))...)
		}
	}
	if ap, ok := node["additionalProperties"]; ok && ap != nil {
		if lvl == rootLevel {
			errs = append(errs, status.ForbiddenField(p.Child("additionalProperties"), "must not be used at the root"))
		}
		if sub, ok := ap.(map[string]any); ok {
			errs = append(errs, nodeErrors(sub, fieldLevel, p.Child("additionalProperties"))...)
		}
	}
	if intOrString && preserve {
		errs = append(errs, status.InvalidValue(p.Child("x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	if intOrString && embedded {
		errs = append(errs, status.InvalidValue(p.Child("x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"))
	}
	errs = append(errs, junctorErrors(node, p, true)...)
	switch {
	case embedded && typ == "":
		errs = append(errs, status.Required(p.Child("type"), "must be object if x-kubernetes-embedded-resource is true"))
	case embedded && typ != "object":
		errs = append(errs, status.InvalidValue(p.Child("type"), typ, "must be object if x-kubernetes-embedded-resource is true"))
	case typ == "" && !intOrString && !preserve:
		errs = append(errs, status.Required(p.Child("type"), typeRequired[lvl]))
	}
	if embedded && node["additionalProperties"] != nil {
		errs = append(errs, status.ForbiddenField(p.Child("additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"))
	}
	if lvl == rootLevel && typ != "" && typ != "object" {
		errs = append(errs, status.InvalidValue(p.Child("type"), typ, "must be object at the root"))
	}
	if pat, ok := node["pattern"].(string); ok {
		if _, err := regexp.Compile(pat); err != nil {
			errs = append(errs, status.InvalidValue(p.Child("pattern"), pat, "must be a valid regular expression, but isn't: "+err.Error()))
		}
	}
	if embedded && !preserve && len(props) == 0 {
		errs = append(errs, status.Required(p.Child("properties"), "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"))
	}
	return errs
}

var typeRequired = map[level]string{
	rootLevel:  "must not be empty at the root",
	itemLevel:  "must not be empty for specified array items",
	fieldLevel: "must not be empty for specified object fields",
}

// metadataErrors: the metadata of an object may only be typed object at
// the root, and restrict nothing but name and generateName: as in kube,
// not even a description or a title documents it (it is ObjectMeta's).
// A default is refused apart.
func metadataErrors(node map[string]any, lvl level, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if typ, _ := node["type"].(string); typ != "object" {
		errs = append(errs, status.InvalidValue(p.Child("type"), typ, "must be object"))
	}
	if lvl != rootLevel {
		return errs
	}
	for k, v := range node {
		switch k {
		case "type", "default":
			continue
		case "properties":
			props, _ := v.(map[string]any)
			ok := true
			for name := range props {
				ok = ok && (name == "name" || name == "generateName")
			}
			if ok {
				continue
			}
		}
		return append(errs, status.ForbiddenField(p, "must not specify anything other than name and generateName, but metadata is implicitly specified"))
	}
	return errs
}

// junctorErrors checks anyOf, allOf, oneOf and not: they may only
// validate values, never say what a value is. At a node of the
// structural part (structural set), kube allows int-or-string's anyOf of
// type integer and type string, directly or first in an allOf.
func junctorErrors(node map[string]any, p status.Path, structural bool) status.FieldErrors {
	var errs status.FieldErrors
	for _, j := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := node[j].([]any)
		if j == "anyOf" && structural && isIntOrStringAnyOf(node) {
			continue
		}
		for i, x := range list {
			if sub, ok := x.(map[string]any); ok {
				skipAnyOf := structural && j == "allOf" && i == 0 && isIntOrStringAnyOf(sub)
				errs = append(errs, nestedErrors(sub, p.Child(j).Index(i), skipAnyOf)...)
			}
		}
	}
	if sub, ok := node["not"].(map[string]any); ok {
		errs = append(errs, nestedErrors(sub, p.Child("not"), false)...)
	}
	return errs
}

// isIntOrStringAnyOf reports kube's exception for int-or-string: an
// anyOf of type integer and type string.
func isIntOrStringAnyOf(node map[string]any) bool {
	list, _ := node["anyOf"].([]any)
	if len(list) != 2 {
		return false
	}
	a, _ := list[0].(map[string]any)
	b, _ := list[1].(map[string]any)
	return len(a) == 1 && len(b) == 1 && a["type"] == "integer" && b["type"] == "string"
}

var nestedForbidden = []struct{ key, msg string }{
	{"type", "must be empty to be structural"},
	{"additionalProperties", "must be undefined to be structural"},
	{"default", "must be undefined to be structural"},
	{"title", "must be empty to be structural"},
	{"description", "must be empty to be structural"},
	{"nullable", "must be false to be structural"},
	{"x-kubernetes-preserve-unknown-fields", "must be false to be structural"},
	{"x-kubernetes-embedded-resource", "must be false to be structural"},
	{"x-kubernetes-int-or-string", "must be false to be structural"},
	{"x-kubernetes-list-map-keys", "must be empty to be structural"},
	{"x-kubernetes-list-type", "must be undefined to be structural"},
	{"x-kubernetes-map-type", "must be undefined to be structural"},
	{"x-kubernetes-validations", "must be empty to be structural"},
}

func nestedErrors(node map[string]any, p status.Path, skipAnyOf bool) status.FieldErrors {
	var errs status.FieldErrors
	for _, f := range nestedForbidden {
		if v, ok := node[f.key]; ok && v != nil && v != false && v != "" {
			errs = append(errs, status.ForbiddenField(p.Child(f.key), f.msg))
		}
	}
	props, _ := node["properties"].(map[string]any)
	for _, k := range sortedKeys(props) {
		if k == "metadata" {
			errs = append(errs, status.ForbiddenField(p.Child("properties").Key(k), "must not be specified in a nested context"))
			continue
		}
		if sub, ok := props[k].(map[string]any); ok {
			errs = append(errs, nestedErrors(sub, p.Child("properties").Key(k), false)...)
		}
	}
	if sub, ok := node["items"].(map[string]any); ok {
		errs = append(errs, nestedErrors(sub, p.Child("items"), false)...)
	}
	if skipAnyOf {
		node = withoutKey(node, "anyOf")
	}
	errs = append(errs, junctorErrors(node, p, false)...)
	return errs
}

func withoutKey(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// completenessErrors reports what the value validations of the root
// (and those nested in them) name that the structural part does not
// specify, as kube-apiserver does (it checks the root's only).
func completenessErrors(root map[string]any, p status.Path) status.FieldErrors {
	return junctorsComplete(root, root, p, p)
}

// junctorsComplete checks the junctors of v (at vp) against the
// structural node s (at sp).
func junctorsComplete(v, s map[string]any, sp, vp status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if sub, ok := v["not"].(map[string]any); ok {
		errs = append(errs, nestedComplete(sub, s, sp, vp.Child("not"))...)
	}
	for _, j := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := v[j].([]any)
		for i, x := range list {
			if sub, ok := x.(map[string]any); ok {
				errs = append(errs, nestedComplete(sub, s, sp, vp.Child(j).Index(i))...)
			}
		}
	}
	return errs
}

// nestedComplete checks the value validation v (at vp) against the
// structural node s (at sp; nil when it is not specified).
func nestedComplete(v, s map[string]any, sp, vp status.Path) status.FieldErrors {
	if s == nil {
		return status.FieldErrors{status.Required(sp, "because it is defined in "+vp.String())}
	}
	errs := junctorsComplete(v, s, sp, vp)
	if items, ok := v["items"].(map[string]any); ok {
		sItems, _ := s["items"].(map[string]any)
		errs = append(errs, nestedComplete(items, sItems, sp.Child("items"), vp.Child("items"))...)
	}
	props, _ := v["properties"].(map[string]any)
	sProps, _ := s["properties"].(map[string]any)
	for _, k := range sortedKeys(props) {
		sub, _ := props[k].(map[string]any)
		if sub == nil {
			continue
		}
		sProp, _ := sProps[k].(map[string]any)
		if sProp == nil {
			errs = append(errs, status.Required(sp.Child("properties").Key(k), "because it is defined in "+vp.Child("properties").Key(k).String()))
			continue
		}
		errs = append(errs, nestedComplete(sub, sProp, sp.Child("properties").Key(k), vp.Child("properties").Key(k))...)
	}
	return errs
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
