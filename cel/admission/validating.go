package admission

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
)

// ValidatingPolicy is a compiled ValidatingAdmissionPolicy.
type ValidatingPolicy struct {
	Policy      *arv1.ValidatingAdmissionPolicy
	conds       *Conditions
	vars        map[string]*program
	validations []*program
	messages    []*program // nil where a validation has no messageExpression
	audits      []*program
}

// CompileValidating compiles every expression of p. Expressions that do
// not compile fail when evaluated (failurePolicy decides).
func (c *Compiler) CompileValidating(p *arv1.ValidatingAdmissionPolicy) (*ValidatingPolicy, error) {
	spec := envSpec{params: p.Spec.ParamKind != nil}
	vars, spec, err := c.compileVariables(p.Spec.Variables, spec)
	if err != nil {
		return nil, err
	}
	conds, err := c.compileConditions(p.Spec.MatchConditions, spec)
	if err != nil {
		return nil, err
	}
	env, err := c.env(spec)
	if err != nil {
		return nil, err
	}
	vp := &ValidatingPolicy{Policy: p, conds: conds, vars: vars}
	for _, v := range p.Spec.Validations {
		vp.validations = append(vp.validations, compile(env, v.Expression, cel.BoolType))
		var msg *program
		if v.MessageExpression != "" {
			msg = compile(env, v.MessageExpression, cel.StringType)
		}
		vp.messages = append(vp.messages, msg)
	}
	for _, a := range p.Spec.AuditAnnotations {
		vp.audits = append(vp.audits, compileOneOf(env, a.ValueExpression, []*cel.Type{cel.StringType, cel.NullType}))
	}
	return vp, nil
}

// compileVariables compiles variables in order, each seeing the ones
// before it, and returns them with the environment spec that declares
// them all.
func (c *Compiler) compileVariables(vs []arv1.Variable, spec envSpec) (map[string]*program, envSpec, error) {
	progs := map[string]*program{}
	for _, v := range vs {
		env, err := c.env(spec)
		if err != nil {
			return nil, spec, err
		}
		p := compile(env, v.Expression, nil)
		progs[v.Name] = p
		typ := cel.DynType
		if p.out != nil {
			typ = p.out
		}
		spec.vars = append(spec.vars, namedType{name: v.Name, typ: typ})
	}
	return progs, spec, nil
}

// Action is what one validation decided.
type Action int

const (
	// Admit: the validation passed, or failed to evaluate under
	// failurePolicy Ignore.
	Admit Action = iota
	// Deny: the validation failed, or failed to evaluate under
	// failurePolicy Fail.
	Deny
)

// Decision is the outcome of one validation (Index into the policy's
// validations; -1 for a decision about the whole policy).
type Decision struct {
	Action Action
	// Errored says the decision comes from an error, not from the
	// validation's result.
	Errored bool
	Message string
	Reason  meta.StatusReason
	Index   int
}

// AuditResult is one audit annotation's outcome: Value to publish under
// Key (empty: nothing to publish), or Err to deny the request with.
type AuditResult struct {
	Key, Value string
	Err        string
}

// Result is what a policy decided for one request and one param.
type Result struct {
	Decisions []Decision
	Audits    []AuditResult
}

// failurePolicy is the policy's failurePolicy, Fail when unset.
func (vp *ValidatingPolicy) failurePolicy() arv1.FailurePolicyType {
	if vp.Policy.Spec.FailurePolicy == nil {
		return arv1.Fail
	}
	return *vp.Policy.Spec.FailurePolicy
}

// errorDecision is the decision an error makes under the policy's
// failurePolicy.
func (vp *ValidatingPolicy) errorDecision(msg string, index int) Decision {
	d := Decision{Action: Deny, Errored: true, Message: msg, Index: index}
	if vp.failurePolicy() == arv1.Ignore {
		d.Action = Admit
	}
	return d
}

// Validate evaluates the policy's matchConditions, validations and
// audit annotations on in, as kube-apiserver's validator does.
func (vp *ValidatingPolicy) Validate(ctx context.Context, in *Input) Result {
	matched, _, err := vp.conds.match(newActivation(ctx, in, ConditionsBudget, vp.vars))
	if err != nil {
		return Result{Decisions: []Decision{vp.errorDecision(err.Error(), -1)}}
	}
	if !matched {
		return Result{}
	}
	a := newActivation(ctx, in, RuntimeBudget, vp.vars)
	vals := make([]ref.Val, len(vp.validations))
	evalErrs := make([]error, len(vp.validations))
	for i, p := range vp.validations {
		out, evalErr, err := a.eval(p)
		if err != nil {
			return Result{Decisions: []Decision{vp.errorDecision(err.Error(), -1)}}
		}
		vals[i], evalErrs[i] = out, evalErr
	}
	msgs, msgErr := vp.evalMessages(ctx, in, a.budget)
	res := Result{Decisions: make([]Decision, len(vp.validations))}
	for i := range vp.validations {
		res.Decisions[i] = vp.decide(i, vals[i], evalErrs[i], msgs[i], msgErr)
	}
	audits, err := vp.evalAudits(ctx, in)
	if err != nil {
		return Result{Decisions: []Decision{vp.errorDecision(err.Error(), -1)}}
	}
	res.Audits = audits
	return res
}

// decide turns validation i's result into a decision.
func (vp *ValidatingPolicy) decide(i int, val ref.Val, evalErr error, msg string, msgErr error) Decision {
	v := vp.Policy.Spec.Validations[i]
	switch {
	case evalErr != nil:
		return vp.errorDecision(evalErr.Error(), i)
	case msgErr != nil:
		return vp.errorDecision(fmt.Sprintf("failed messageExpression: %s", msgErr), i)
	case val == types.True:
		return Decision{Action: Admit, Index: i}
	}
	d := Decision{Action: Deny, Reason: meta.StatusReasonInvalid, Index: i, Message: msg}
	if v.Reason != nil {
		d.Reason = *v.Reason
	}
	if d.Message == "" {
		d.Message = strings.TrimSpace(v.Message)
	}
	if d.Message == "" {
		d.Message = "failed expression: " + strings.TrimSpace(v.Expression)
	}
	return d
}

// evalMessages evaluates the messageExpressions with what remains of the
// budget. A message that fails, is not a single line or is too long is
// empty (the static message stands in); running out of budget is err.
func (vp *ValidatingPolicy) evalMessages(ctx context.Context, in *Input, budget int64) ([]string, error) {
	out := make([]string, len(vp.messages))
	a := newActivation(ctx, in, budget, vp.vars)
	for i, p := range vp.messages {
		if p == nil {
			continue
		}
		val, evalErr, err := a.eval(p)
		if err != nil {
			return out, err
		}
		if evalErr != nil {
			continue
		}
		s, ok := val.Value().(string)
		if !ok {
			continue
		}
		s = strings.TrimSpace(s)
		if len(s) > maxMessageBytes || strings.Contains(s, "\n") {
			s = ""
		}
		out[i] = s
	}
	return out, nil
}

// evalAudits evaluates the audit annotations, with a budget of their
// own. A string is published (trimmed; empty is not), null is not, any
// other type is an error; evaluation errors follow failurePolicy.
func (vp *ValidatingPolicy) evalAudits(ctx context.Context, in *Input) ([]AuditResult, error) {
	if len(vp.audits) == 0 {
		return nil, nil
	}
	a := newActivation(ctx, in, RuntimeBudget, vp.vars)
	var out []AuditResult
	for i, p := range vp.audits {
		spec := vp.Policy.Spec.AuditAnnotations[i]
		val, evalErr, err := a.eval(p)
		if err != nil {
			return nil, err
		}
		r := AuditResult{Key: spec.Key}
		switch {
		case evalErr != nil:
			if vp.failurePolicy() == arv1.Ignore {
				continue
			}
			r.Err = evalErr.Error()
		case val.Type() == types.StringType:
			r.Value = strings.TrimSpace(string(val.(types.String)))
		case val.Type() == types.NullType:
		default:
			r.Err = fmt.Sprintf("valueExpression '%v' resulted in unsupported return type: %v. Return type must be either string or null.", spec.ValueExpression, val.Type())
		}
		out = append(out, r)
	}
	return out, nil
}

// ErrOutOfBudget reports whether err is the error of a spent runtime
// budget.
func ErrOutOfBudget(err error) bool { return errors.Is(err, errOutOfBudget) }
