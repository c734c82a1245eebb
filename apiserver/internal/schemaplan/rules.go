package schemaplan

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// errNoRuleEngine refuses a schema with rules on a server that cannot
// evaluate them: rules are never ignored.
var errNoRuleEngine = errors.New("the schema has x-kubernetes-validations (CEL rules) but the server has no rule engine " +
	"(set Options.RuleEngine, for example to an engine from github.com/kapi-dev/kapi/cel)")

// compileRules compiles the schema's rules, if it has any.
func (p *Plan) compileRules(engine schema.RuleEngine) error {
	if !schema.HasRules(p.Root) {
		return nil
	}
	if engine == nil {
		return errNoRuleEngine
	}
	rv, err := engine.Compile(p.Root, status.NewPath("openAPIV3Schema"))
	if err != nil {
		return fmt.Errorf("x-kubernetes-validations: %w", err)
	}
	p.Rules = rv
	_, namesOnly := rv.(schema.MetadataNamesOnly)
	p.RulesReadManagedFields = !namesOnly
	return nil
}

// ValidateRules evaluates the schema's rules on obj against old (nil on
// create). decoded holds the JSON forms of obj and old the write already
// has; found are the
// errors found so far: as kube-apiserver, rules are not evaluated on an
// object of the wrong shape (wrong types, missing required fields,
// values too long or too many, values outside an enum). Rules broken by
// values an update left unchanged come back as warnings, for the response.
func (p *Plan) ValidateRules(ctx context.Context, obj, old meta.Object, objForm, oldForm map[string]any, found status.FieldErrors) (errs status.FieldErrors, warnings []string, err error) {
	if p == nil || p.Rules == nil {
		return nil, nil, nil
	}
	for _, e := range found {
		switch e.Type {
		case meta.CauseTypeFieldValueNotSupported, meta.CauseTypeFieldValueRequired, meta.CauseTypeFieldValueTooLong,
			meta.CauseTypeFieldValueTooMany, meta.CauseTypeTypeInvalid:
			return status.FieldErrors{status.InvalidValue(status.NewPath("<nil>"), nil,
				"some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")}, nil, nil
		}
	}
	x, err := p.jsonObject(obj, objForm)
	if err != nil {
		return nil, nil, err
	}
	var ox map[string]any
	if old != nil && !reflect.ValueOf(old).IsNil() {
		if ox, err = p.jsonObject(old, oldForm); err != nil {
			return nil, nil, err
		}
	}
	errs, warnings = p.Rules.Validate(ctx, x, ox)
	return errs, warnings, nil
}

// jsonObject returns the JSON form of a whole object, as rules see it.
func (p *Plan) jsonObject(obj meta.Object, decoded map[string]any) (map[string]any, error) {
	if u, ok := obj.(*meta.Unstructured); ok {
		content := maps.Clone(u.Content)
		if content == nil {
			content = map[string]any{}
		}
		content["apiVersion"], content["kind"] = u.APIVersion, u.Kind
		return content, nil
	}
	if decoded != nil {
		return decoded, nil
	}
	x, err := JSONForm(reflect.ValueOf(obj))
	if err != nil {
		return nil, err
	}
	m, _ := x.(map[string]any)
	return m, nil
}
