package apiextensionsv1

import (
	"context"
	"errors"
	"strings"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// ruleErrors compiles the rules of each version's schema with engine,
// as kube-apiserver compiles a definition's rules when it is written:
// each rule that does not compile, costs too much or uses oldSelf where
// nothing correlates is a cause at its path under the version's
// openAPIV3Schema (under spec.validation's when every version has the
// same, reported once). Without an engine the server's check refuses
// rules.
func ruleErrors(crd *CustomResourceDefinition, k apiserver.Kind, engine schema.RuleEngine) status.FieldErrors {
	if engine == nil {
		return nil
	}
	var errs status.FieldErrors
	places := schemaPlacesOf(crd)
	for i := range crd.Spec.Versions {
		sch := versionSchema(crd, k, i)
		if !places.reports(i) || !schema.HasRules(sch) {
			continue
		}
		root := places.path(i)
		_, err := engine.Compile(sch, root)
		var fes status.FieldErrors
		switch {
		case err == nil:
			errs = append(errs, defaultRuleErrors(engine, sch, root)...)
		case errors.As(err, &fes):
			errs = append(errs, fes...)
		default:
			errs = append(errs, status.InvalidValue(root, "", err.Error()))
		}
	}
	return errs
}

// defaultRuleErrors evaluates on each default of the kind schema s (at
// p) the rules of its node and of the nodes below it, as kube-apiserver
// checks defaults: a default its rules refuse is refused, the error at
// the default's path. As kube, the root's apiVersion, kind and metadata
// (which may have no defaults) and map values are not looked at.
func defaultRuleErrors(engine schema.RuleEngine, s *schema.Schema, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	for _, k := range sortedKeys(propertyMap(s)) {
		if !topLevelMeta[k] {
			errs = append(errs, nodeDefaultRules(engine, s.Properties[k], p.Child("properties").Key(k))...)
		}
	}
	return errs
}

func nodeDefaultRules(engine schema.RuleEngine, s *schema.Schema, p status.Path) status.FieldErrors {
	if !schema.HasRules(s) {
		return nil
	}
	var errs status.FieldErrors
	if s.Default != nil {
		errs = append(errs, defaultRules(engine, s, p.Child("default"))...)
	}
	if s.Items != nil {
		errs = append(errs, nodeDefaultRules(engine, s.Items, p.Child("items"))...)
	}
	for _, k := range sortedKeys(propertyMap(s)) {
		errs = append(errs, nodeDefaultRules(engine, s.Properties[k], p.Child("properties").Key(k))...)
	}
	return errs
}

// defaultRules evaluates the rules of s and below on its default, which
// sits at p, as on a create: the default is the value of a property of
// an object made for it.
func defaultRules(engine schema.RuleEngine, s *schema.Schema, p status.Path) status.FieldErrors {
	const prop = "v"
	holder := &schema.Schema{Type: "object", Properties: map[string]*schema.Schema{prop: s}}
	rv, err := engine.Compile(holder, p)
	if err != nil {
		return nil // the rules compiled in the whole schema
	}
	errs, _ := rv.Validate(context.Background(), map[string]any{prop: s.Default}, nil)
	for _, e := range errs {
		e.Field = p.String() + strings.TrimPrefix(e.Field, prop)
	}
	return errs
}

// propertyMap is s's properties as a map sortedKeys takes.
func propertyMap(s *schema.Schema) map[string]any {
	out := make(map[string]any, len(s.Properties))
	for k, v := range s.Properties {
		out[k] = v
	}
	return out
}

// versionSchema is the schema of the definition's version i in k, the
// kind KindFor made of it.
func versionSchema(crd *CustomResourceDefinition, k apiserver.Kind, i int) *schema.Schema {
	if len(k.Versions) > 0 {
		return k.Versions[i].Schema
	}
	if crd.Spec.Versions[i].Storage {
		return k.Schema
	}
	return nil
}
