package apiextensionsv1

import (
	"context"
	"errors"
	"strings"

	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// schemaRuleErrors compiles the rules of a version's schema (sch, at
// root) with engine, as kube-apiserver compiles a definition's rules
// when it is written: each rule that does not compile, costs too much or
// uses oldSelf where nothing correlates is a cause at its path, and so is
// each default its rules refuse. Without an engine the server's check
// refuses rules.
func schemaRuleErrors(engine schema.RuleEngine, sch *schema.Schema, root status.Path) status.FieldErrors {
	if engine == nil || !schema.HasRules(sch) {
		return nil
	}
	_, err := engine.Compile(sch, root)
	var fes status.FieldErrors
	switch {
	case err == nil:
		return defaultRuleErrors(engine, sch, root)
	case errors.As(err, &fes):
		return fes
	}
	return status.FieldErrors{status.InvalidValue(root, "", err.Error())}
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
