package admission

import (
	"strings"

	"github.com/google/cel-go/cel"

	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// CheckExpression checks one expression of an admission configuration
// as kube-apiserver compiles it when the configuration is written (the
// admissionregistrationv1.Options.CheckExpression hook): in the
// environment of its kind (params when the policy has a paramKind, the
// authorizer but for messageExpressions, Object and JSONPatch for
// mutations), with the type its kind must evaluate to, and returns
// kube's field error, nil when it compiles.
//
// The hook does not say which variables the policy declares before the
// expression: variables is then any map, and an expression reading it
// may evaluate to dyn. [Compiler.CheckPolicyExpression] checks against
// the variables themselves, as kube-apiserver does.
func (c *Compiler) CheckExpression(e arv1.Expression) *status.FieldError {
	spec, ok := c.checkSpec(e)
	if !ok {
		return nil
	}
	if readsVariables(e) {
		spec.anyVariables = true
	}
	return c.check(e, spec, spec.anyVariables)
}

// CheckPolicyExpression checks an expression of a policy as
// CheckExpression does, with vars the policy's variables declared
// before it (all of them for validations, messages, audit annotations
// and mutations; those before it for a variable).
func (c *Compiler) CheckPolicyExpression(e arv1.Expression, vars []arv1.Variable) *status.FieldError {
	spec, ok := c.checkSpec(e)
	if !ok {
		return nil
	}
	if e.Kind != arv1.MatchConditionExpression && len(vars) > 0 {
		var err error
		if _, spec, err = c.compileVariables(vars, spec); err != nil {
			return internalFieldError(e.Path, err)
		}
	}
	return c.check(e, spec, false)
}

// checkSpec is the environment of e's kind.
func (c *Compiler) checkSpec(e arv1.Expression) (envSpec, bool) {
	spec := envSpec{params: e.HasParams, noAuthorizer: !e.HasAuthorizer}
	switch e.Kind {
	case arv1.ApplyConfigurationExpression, arv1.JSONPatchExpression:
		spec.patch = true
	case arv1.MatchConditionExpression, arv1.ValidationExpression, arv1.MessageExpression,
		arv1.AuditAnnotationExpression, arv1.VariableExpression:
	default:
		return spec, false
	}
	return spec, true
}

// readsVariables reports whether e may read a policy's variables.
func readsVariables(e arv1.Expression) bool {
	return e.Kind != arv1.MatchConditionExpression && strings.Contains(e.Expression, varVariables)
}

// check compiles e in spec. With dynOK, an expression that evaluates to
// dyn passes the type check (its variables' types are not known).
func (c *Compiler) check(e arv1.Expression, spec envSpec, dynOK bool) *status.FieldError {
	env, err := c.env(spec)
	if err != nil {
		return internalFieldError(e.Path, err)
	}
	wants := wantTypes(e.Kind)
	p := compileOneOf(env, e.Expression, wants)
	if p.err == nil {
		return nil
	}
	if dynOK && p.out == nil && len(wants) > 0 {
		if q := compileOneOf(env, e.Expression, nil); q.err == nil && q.out.IsExactType(cel.DynType) {
			return nil
		}
	}
	return status.InvalidValue(e.Path, e.Expression, p.err.Error())
}

// wantTypes are the types an expression of kind k must evaluate to
// (none: any).
func wantTypes(k arv1.ExpressionKind) []*cel.Type {
	switch k {
	case arv1.MatchConditionExpression, arv1.ValidationExpression:
		return []*cel.Type{cel.BoolType}
	case arv1.MessageExpression:
		return []*cel.Type{cel.StringType}
	case arv1.AuditAnnotationExpression:
		return []*cel.Type{cel.StringType, cel.NullType}
	case arv1.ApplyConfigurationExpression:
		return []*cel.Type{applyConfigType}
	case arv1.JSONPatchExpression:
		return []*cel.Type{jsonPatchesType}
	}
	return nil
}

// internalFieldError is kube's field.InternalError: an environment that
// could not be built.
func internalFieldError(p status.Path, err error) *status.FieldError {
	return &status.FieldError{Type: meta.CauseType("InternalError"), Field: p.String(), Detail: err.Error()}
}
