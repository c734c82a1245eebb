package apiextensionsv1

import (
	"github.com/kapi-dev/kapi/status"
)

// listMapErrors checks the list and map extensions of the node doc (at
// p) as kube-apiserver does, with its messages: the types they need,
// their values, a list-type map's keys (scalar properties of its items,
// each required or defaulted, none twice) and the items of sets and
// maps (not nullable; a set's objects and lists atomic).
func listMapErrors(doc map[string]any, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	typ, _ := doc["type"].(string)
	if v, ok := doc["x-kubernetes-preserve-unknown-fields"].(bool); ok && !v {
		errs = append(errs, status.InvalidValue(p.Child("x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"))
	}
	mapType, hasMapType := doc["x-kubernetes-map-type"].(string)
	if hasMapType {
		errs = append(errs, typeFor(p, typ, "object", "must be object if x-kubernetes-map-type is specified")...)
		if mapType != "atomic" && mapType != "granular" {
			errs = append(errs, status.NotSupported(p.Child("x-kubernetes-map-type"), mapType, []string{"atomic", "granular"}))
		}
	}
	listType, hasListType := doc["x-kubernetes-list-type"].(string)
	items, _ := doc["items"].(map[string]any)
	switch {
	case hasListType && typ != "array":
		errs = append(errs, typeFor(p, typ, "array", "must be array if x-kubernetes-list-type is specified")...)
	case listType == "set" && items != nil:
		errs = append(errs, setItemErrors(items, p.Child("items"))...)
	}
	if hasListType && listType != "atomic" && listType != "set" && listType != "map" {
		errs = append(errs, status.NotSupported(p.Child("x-kubernetes-list-type"), listType, []string{"atomic", "set", "map"}))
	}
	keys := stringsOf(doc["x-kubernetes-list-map-keys"])
	switch {
	case len(keys) == 0:
	case !hasListType:
		errs = append(errs, status.Required(p.Child("x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"))
	case listType != "map":
		errs = append(errs, status.InvalidValue(p.Child("x-kubernetes-list-type"), listType, "must be map if x-kubernetes-list-map-keys is non-empty"))
	}
	if listType == "map" {
		errs = append(errs, listMapKeyErrors(doc, keys, items, p)...)
	}
	if (listType == "set" || listType == "map") && items != nil {
		errs = append(errs, uniqueItemErrors(listType, keys, items, p.Child("items"))...)
	}
	return errs
}

// typeFor says a node of type typ must be of type want for an extension.
func typeFor(p status.Path, typ, want, detail string) status.FieldErrors {
	switch typ {
	case want:
		return nil
	case "":
		return status.FieldErrors{status.Required(p.Child("type"), detail)}
	}
	return status.FieldErrors{status.InvalidValue(p.Child("type"), typ, detail)}
}

// setItemErrors: the objects and lists of a set are atomic. As kube,
// the map-type error shows the items' list type as its value.
func setItemErrors(items map[string]any, p status.Path) status.FieldErrors {
	switch items["type"] {
	case "array":
		if lt, ok := items["x-kubernetes-list-type"].(string); ok && lt != "atomic" {
			return status.FieldErrors{status.InvalidValue(p.Child("x-kubernetes-list-type"), lt, "must be atomic as item of a list with x-kubernetes-list-type=set")}
		}
	case "object":
		if mt, _ := items["x-kubernetes-map-type"].(string); mt != "atomic" {
			return status.FieldErrors{status.InvalidValue(p.Child("x-kubernetes-map-type"), items["x-kubernetes-list-type"], "must be atomic as item of a list with x-kubernetes-list-type=set")}
		}
	}
	return nil
}

// listMapKeyErrors checks a list-type map's keys against its items. As
// kube, a key's type error shows the items' type as its value.
func listMapKeyErrors(doc map[string]any, keys []string, items map[string]any, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if len(keys) == 0 {
		errs = append(errs, status.Required(p.Child("x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"))
	}
	if items == nil {
		return append(errs, status.Required(p.Child("items"), "must have a schema if x-kubernetes-list-type is map"))
	}
	itemType, _ := items["type"].(string)
	if itemType != "object" {
		return append(errs, status.InvalidValue(p.Child("items").Child("type"), itemType, "must be object if parent array's x-kubernetes-list-type is map"))
	}
	props, _ := items["properties"].(map[string]any)
	seen := map[string]bool{}
	for _, k := range keys {
		prop, ok := props[k].(map[string]any)
		switch {
		case !ok:
			errs = append(errs, status.InvalidValue(p.Child("x-kubernetes-list-map-keys"), keys, "entries must all be names of item properties"))
		case prop["type"] == "array" || prop["type"] == "object":
			errs = append(errs, status.InvalidValue(p.Child("items").Child("properties").Key(k).Child("type"), itemType, "must be a scalar type if parent array's x-kubernetes-list-type is map"))
		}
		if seen[k] {
			errs = append(errs, status.InvalidValue(p.Child("x-kubernetes-list-map-keys"), keys, "must not contain duplicate entries"))
		}
		seen[k] = true
	}
	return errs
}

// uniqueItemErrors: the items of a set or map are not nullable, and a
// map's keys are required or defaulted, and not nullable.
func uniqueItemErrors(listType string, keys []string, items map[string]any, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if items["nullable"] == true {
		errs = append(errs, status.ForbiddenField(p.Child("nullable"), "cannot be nullable when x-kubernetes-list-type is "+listType))
	}
	if listType != "map" {
		return errs
	}
	required := stringsOf(items["required"])
	props, _ := items["properties"].(map[string]any)
	for _, k := range keys {
		prop, ok := props[k].(map[string]any)
		if !ok {
			continue
		}
		kp := p.Child("properties").Key(k)
		if _, hasDefault := prop["default"]; !contains(required, k) && !hasDefault {
			errs = append(errs, status.Required(kp.Child("default"), "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"))
		}
		if prop["nullable"] == true {
			errs = append(errs, status.ForbiddenField(kp.Child("nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"))
		}
	}
	return errs
}

func stringsOf(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
