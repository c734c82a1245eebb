package apiserver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
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
func (p *schemaPlan) compileRules(engine schema.RuleEngine) error {
	if !schema.HasRules(p.root) {
		return nil
	}
	if engine == nil {
		return errNoRuleEngine
	}
	rv, err := engine.Compile(p.root, status.NewPath("openAPIV3Schema"))
	if err != nil {
		return fmt.Errorf("x-kubernetes-validations: %w", err)
	}
	p.rules = rv
	_, namesOnly := rv.(schema.MetadataNamesOnly)
	p.rulesReadManagedFields = !namesOnly
	return nil
}

// validateRules evaluates the schema's rules on obj against old (nil on
// create). decoded holds the JSON forms of obj and old the write already
// has; found are the
// errors found so far: as kube-apiserver, rules are not evaluated on an
// object of the wrong shape (wrong types, missing required fields,
// values too long or too many, values outside an enum). Rules broken by
// values an update left unchanged come back as warnings on the response.
func (p *schemaPlan) validateRules(ctx context.Context, obj, old meta.Object, decoded jsonForms, found status.FieldErrors) (status.FieldErrors, error) {
	if p == nil || p.rules == nil {
		return nil, nil
	}
	for _, e := range found {
		switch e.Type {
		case meta.CauseTypeFieldValueNotSupported, meta.CauseTypeFieldValueRequired, meta.CauseTypeFieldValueTooLong,
			meta.CauseTypeFieldValueTooMany, meta.CauseTypeTypeInvalid:
			return status.FieldErrors{status.InvalidValue(status.NewPath("<nil>"), nil,
				"some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")}, nil
		}
	}
	x, err := p.jsonObject(obj, decoded.obj)
	if err != nil {
		return nil, err
	}
	var ox map[string]any
	if old != nil && !reflect.ValueOf(old).IsNil() {
		if ox, err = p.jsonObject(old, decoded.old); err != nil {
			return nil, err
		}
	}
	errs, warnings := p.rules.Validate(ctx, x, ox)
	for _, w := range warnings {
		warn(ctx, w)
	}
	return errs, nil
}

// jsonObject returns the JSON form of a whole object, as rules see it.
func (p *schemaPlan) jsonObject(obj meta.Object, decoded map[string]any) (map[string]any, error) {
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
	x, err := jsonForm(reflect.ValueOf(obj))
	if err != nil {
		return nil, err
	}
	m, _ := x.(map[string]any)
	return m, nil
}

// warningsKey carries a request's warning writer on its context.
type warningsKey struct{}

// warnings adds Warning headers to a response, each text once (a write
// retried after a conflict validates again).
type warnings struct {
	h    http.Header
	seen map[string]bool
}

func withWarnings(ctx context.Context, w http.ResponseWriter) context.Context {
	return context.WithValue(ctx, warningsKey{}, &warnings{h: w.Header()})
}

// warn adds a warning to the response of the request ctx belongs to.
func warn(ctx context.Context, msg string) {
	ws, _ := ctx.Value(warningsKey{}).(*warnings)
	if ws == nil || ws.seen[msg] {
		return
	}
	if ws.seen == nil {
		ws.seen = map[string]bool{}
	}
	ws.seen[msg] = true
	addWarning(headerWriter{ws.h}, msg)
}

// headerWriter lets addWarning write to a bare header.
type headerWriter struct{ h http.Header }

func (w headerWriter) Header() http.Header         { return w.h }
func (w headerWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w headerWriter) WriteHeader(int)             {}
