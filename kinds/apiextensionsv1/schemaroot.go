package apiextensionsv1

import (
	"fmt"
	"reflect"

	kjson "sigs.k8s.io/json"

	"github.com/kapi-dev/kapi/status"
)

// schemaErrors checks the schema of version i (shared by every version
// when p is spec.validation; p is where kube's CustomResourceValidation
// is) as kube-apiserver does: the root's fields when /status is served,
// a nullable root, the structural checks and defaults, the nodes'
// checks, then (the schema being sound) its rules.
func (c *checker) schemaErrors(i int, p status.Path, statusEnabled bool) status.FieldErrors {
	v := &c.crd.Spec.Versions[i]
	if !hasSchema(v) {
		return nil
	}
	root := internalSchemaOf(v.Schema.OpenAPIV3Schema)
	var errs status.FieldErrors
	if statusEnabled && root != nil {
		errs = append(errs, statusRootErrors(root, p)...)
	}
	if root != nil && root.Nullable {
		errs = append(errs, status.ForbiddenField(p.Child("openAPIV3Schema.nullable"), "nullable cannot be true at the root"))
	}
	sp := p.Child("openAPIV3Schema")
	sch, serrs := compileSchema(v, sp)
	if len(serrs) > 0 {
		return append(errs, serrs...)
	}
	return append(errs, schemaRuleErrors(c.rules, sch, sp)...)
}

// rootFieldsWithStatus are the fields a schema's root may have when the
// status subresource is served (so that the status schema can be taken
// out of it without losing a check), by their internal names.
var rootFieldsWithStatus = []string{"Description", "Type", "Format", "Title", "Maximum", "ExclusiveMaximum", "Minimum",
	"ExclusiveMinimum", "MaxLength", "MinLength", "Pattern", "MaxItems", "MinItems", "UniqueItems", "MultipleOf", "Required",
	"Items", "Properties", "ExternalDocs", "Example", "XPreserveUnknownFields", "XValidations"}

// statusRootErrors: with /status, the root is of type object and has
// nothing but rootFieldsWithStatus. As kube, the first offending field
// (in the internal type's order) is the one reported, and a refused
// field shows the whole schema as its value.
func statusRootErrors(root *internalSchema, p status.Path) status.FieldErrors {
	rv := reflect.ValueOf(root).Elem()
	for i := range rv.NumField() {
		f := rv.Field(i)
		if f.IsZero() {
			continue
		}
		switch name := rv.Type().Field(i).Name; {
		case name == "Type":
			if root.Type != "object" {
				return status.FieldErrors{status.InvalidValue(p.Child("openAPIV3Schema.type"), root.Type,
					`only "object" is allowed as the type at the root of the schema if the status subresource is enabled`)}
			}
		case !contains(rootFieldsWithStatus, name):
			return status.FieldErrors{status.InvalidValue(p.Child("openAPIV3Schema"), *root,
				fmt.Sprintf("only %v fields are allowed at the root of the schema if the status subresource is enabled", rootFieldsWithStatus))}
		}
	}
	return nil
}

// hasDefaults reports whether any version's schema has a default
// anywhere.
func (c *checker) hasDefaults() bool {
	for i := range c.crd.Spec.Versions {
		v := &c.crd.Spec.Versions[i]
		if !hasSchema(v) {
			continue
		}
		s := &schemaProps{}
		if kjson.UnmarshalCaseSensitivePreserveInts(v.Schema.OpenAPIV3Schema, s) == nil &&
			schemaHas(s, func(s *schemaProps) bool { return s.Default != nil }) {
			return true
		}
	}
	return false
}

// schemaHas reports whether pred holds for s or any schema within it.
func schemaHas(s *schemaProps, pred func(*schemaProps) bool) bool {
	if s == nil {
		return false
	}
	if pred(s) {
		return true
	}
	var subs []*schemaProps
	if s.Items != nil {
		subs = append(subs, s.Items.Schema)
		subs = appendEach(subs, s.Items.JSONSchemas)
	}
	subs = appendEach(appendEach(appendEach(subs, s.AllOf), s.AnyOf), s.OneOf)
	subs = append(subs, s.Not)
	for _, m := range []map[string]schemaProps{s.Properties, s.PatternProperties, s.Definitions} {
		for k := range m {
			x := m[k]
			subs = append(subs, &x)
		}
	}
	for _, b := range []*schemaOrBool{s.AdditionalProperties, s.AdditionalItems} {
		if b != nil {
			subs = append(subs, b.Schema)
		}
	}
	for _, d := range s.Dependencies {
		subs = append(subs, d.Schema)
	}
	for _, sub := range subs {
		if schemaHas(sub, pred) {
			return true
		}
	}
	return false
}

func appendEach(out []*schemaProps, list []schemaProps) []*schemaProps {
	for i := range list {
		out = append(out, &list[i])
	}
	return out
}
