package apiextensionsv1

import (
	"strings"

	"github.com/kapi-dev/kapi/status"
)

// Printer columns and the scale subresource, checked as kube-apiserver
// checks them: their paths only need to start with a dot (the schema is
// not consulted), and the messages and field paths are kube's, the
// column's path at JSONPath, as its internal type names it.

// columnTypes and columnFormats are what a printer column may be, in the
// order kube lists them.
var (
	columnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	columnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
)

// columnErrors checks one printer column at p.
func columnErrors(c *CustomResourceColumnDefinition, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if c.Name == "" {
		errs = append(errs, status.Required(p.Child("name"), ""))
	}
	typesMsg := "must be one of " + strings.Join(columnTypes, ",")
	switch {
	case c.Type == "":
		errs = append(errs, status.Required(p.Child("type"), typesMsg))
	case !contains(columnTypes, c.Type):
		errs = append(errs, status.InvalidValue(p.Child("type"), c.Type, typesMsg))
	}
	if c.Format != "" && !contains(columnFormats, c.Format) {
		errs = append(errs, status.InvalidValue(p.Child("format"), c.Format, "must be one of "+strings.Join(columnFormats, ",")))
	}
	if c.JSONPath == "" {
		return append(errs, status.Required(p.Child("JSONPath"), ""))
	}
	return append(errs, simpleJSONPathErrors(c.JSONPath, p.Child("JSONPath"))...)
}

// simpleJSONPathErrors is kube's check of a column's or the scale
// subresource's path: a dot first is all it asks.
func simpleJSONPathErrors(s string, p status.Path) status.FieldErrors {
	switch {
	case s == "":
		return status.FieldErrors{status.InvalidValue(p, s, "must not be empty")}
	case s[0] != '.':
		return status.FieldErrors{status.InvalidValue(p, s, "must be a simple json path starting with .")}
	}
	return nil
}

// subresourceErrors checks the subresources at p: the scale
// subresource's replicas paths must be under .spec and .status, its
// label selector's (when set) under either.
func subresourceErrors(sr *CustomResourceSubresources, p status.Path) status.FieldErrors {
	if sr == nil || sr.Scale == nil {
		return nil
	}
	sc := sr.Scale
	errs := scalePathErrors(sc.SpecReplicasPath, p.Child("scale.specReplicasPath"), ".spec.", "should be a json path under .spec")
	errs = append(errs, scalePathErrors(sc.StatusReplicasPath, p.Child("scale.statusReplicasPath"), ".status.", "should be a json path under .status")...)
	if sel := sc.LabelSelectorPath; sel != nil && *sel != "" {
		lp := p.Child("scale.labelSelectorPath")
		if perrs := simpleJSONPathErrors(*sel, lp); len(perrs) > 0 {
			errs = append(errs, perrs...)
		} else if !strings.HasPrefix(*sel, ".spec.") && !strings.HasPrefix(*sel, ".status.") {
			errs = append(errs, status.InvalidValue(lp, *sel, "should be a json path under either .spec or .status"))
		}
	}
	return errs
}

// scalePathErrors checks a required replicas path, which must start
// with prefix.
func scalePathErrors(path string, p status.Path, prefix, under string) status.FieldErrors {
	if path == "" {
		return status.FieldErrors{status.Required(p, "")}
	}
	if errs := simpleJSONPathErrors(path, p); len(errs) > 0 {
		return errs
	}
	if !strings.HasPrefix(path, prefix) {
		return status.FieldErrors{status.InvalidValue(p, path, under)}
	}
	return nil
}
