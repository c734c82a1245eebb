package cel

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"

	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// Validator evaluates the compiled rules of one kind's schema; it is
// safe for concurrent use.
type Validator struct {
	root *validator
	opts Options
}

var _ schema.MetadataNamesOnly = (*Validator)(nil)

// MetadataNamesOnly implements schema.MetadataNamesOnly: rules see only
// the name and generateName of an object's metadata.
func (*Validator) MetadataNamesOnly() {}

// validator holds the rules of one schema node and of its descendants.
type validator struct {
	n      *node
	s      *schema.Schema
	rules  []*compiled
	props  map[string]*validator
	order  []string // the keys of props, sorted
	items  *validator
	values *validator
}

// run is the state of one Validate call.
type run struct {
	ctx      context.Context
	budget   int64
	errs     status.FieldErrors
	warnings []string
}

// Validate implements schema.RuleValidator: it evaluates every rule on
// obj, against old on updates, within the engine's cost budget.
func (v *Validator) Validate(ctx context.Context, obj, old map[string]any) (status.FieldErrors, []string) {
	if v == nil || v.root == nil || obj == nil {
		return nil, nil
	}
	r := &run{ctx: ctx, budget: v.opts.RuntimeBudget}
	var oldVal any
	if old != nil {
		oldVal = old
	}
	v.root.validate(r, status.Path{}, obj, oldVal, old != nil, ratchet{cur: &corr{new: obj, old: oldVal, hasOld: old != nil}})
	for _, e := range r.errs {
		rootField(e)
	}
	return r.errs, r.warnings
}

// validate evaluates the rules of v on x (and old, when hasOld) and
// descends into its members.
func (v *validator) validate(r *run, p status.Path, x, old any, hasOld bool, rt ratchet) {
	if v == nil || x == nil || r.budget < 0 {
		return
	}
	if len(v.rules) > 0 {
		v.evaluate(r, p, x, old, hasOld, rt)
	}
	switch t := x.(type) {
	case map[string]any:
		om, _ := old.(map[string]any)
		for _, k := range v.order {
			if e, ok := t[k]; ok {
				oe, had := om[k]
				v.props[k].validate(r, p.Child(k), e, oe, hasOld && had, rt.key(k, e, oe, hasOld && had))
			}
			if r.budget < 0 {
				return
			}
		}
		if v.values == nil || v.n.kind != kindMap {
			return
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			oe, had := om[k]
			v.values.validate(r, p.Key(k), t[k], oe, hasOld && had, rt.key(k, t[k], oe, hasOld && had))
			if r.budget < 0 {
				return
			}
		}
	case []any:
		if v.items == nil {
			return
		}
		ol, _ := old.([]any)
		for i, e := range t {
			oe, ok := any(nil), false
			if hasOld && v.n.listType == "map" {
				oe, ok = oldItem(v.n, ol, e)
			}
			v.items.validate(r, p.Index(i), e, oe, ok, rt.index(e, oe, ok, v.n.listType == "map"))
			if r.budget < 0 {
				return
			}
		}
	}
}

// oldItem finds the first item of a list-type map with the same keys as
// x. As in kube-apiserver, an item correlates only when every key is
// set to a scalar (not null) in both, compared as JSON values of the
// same Go type.
func oldItem(n *node, old []any, x any) (any, bool) {
	m, ok := x.(map[string]any)
	if !ok || !keyed(n.keys, m) {
		return nil, false
	}
	for _, o := range old {
		om, ok := o.(map[string]any)
		if !ok || !keyed(n.keys, om) {
			continue
		}
		same := true
		for _, k := range n.keys {
			if m[k] != om[k] {
				same = false
				break
			}
		}
		if same {
			return o, true
		}
	}
	return nil, false
}

// keyed reports whether every key of a list-type map is set to a scalar
// in the item m.
func keyed(keys []string, m map[string]any) bool {
	for _, k := range keys {
		switch m[k].(type) {
		case bool, int64, float64, string:
		default:
			return false
		}
	}
	return true
}

// activation binds self and oldSelf.
type activation struct {
	self, oldSelf ref.Val
	hasOld        bool
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "self":
		return a.self, true
	case "oldSelf":
		return a.oldSelf, a.hasOld
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

// evaluate runs the rules of one node.
func (v *validator) evaluate(r *run, p status.Path, x, old any, hasOld bool, rt ratchet) {
	if r.budget <= 0 {
		r.errs = append(r.errs, status.InvalidValue(p, v.s.Type, "validation failed due to running out of cost budget, no further validation rules will be run"))
		r.budget = -1
		return
	}
	act := &activation{self: value(v.n, x)}
	optAct := &activation{self: act.self, hasOld: true, oldSelf: types.OptionalNone}
	if hasOld {
		act.oldSelf, act.hasOld = value(v.n, old), true
		optAct.oldSelf = types.OptionalOf(act.oldSelf)
	}
	for _, cr := range v.rules {
		a := act
		if cr.optionalOld {
			a = optAct
		} else if cr.usesOld && !hasOld {
			continue // transition rules need an old value
		}
		if !v.run(r, p, cr, a, x, rt) {
			return
		}
	}
}

// run evaluates one rule; false means the budget ran out and nothing
// more may run.
func (v *validator) run(r *run, p status.Path, cr *compiled, a *activation, x any, rt ratchet) bool {
	val, det, err := cr.prog.ContextEval(r.ctx, a)
	if det == nil || det.ActualCost() == nil {
		r.errs = append(r.errs, status.InvalidValue(p, v.s.Type, fmt.Sprintf("runtime cost could not be calculated for validation rule: %v, no further validation rules will be run", ruleString(cr.rule))))
		r.budget = -1
		return false
	}
	cost := *det.ActualCost()
	if cost > math.MaxInt64 || int64(cost) > r.budget {
		r.errs = append(r.errs, status.InvalidValue(p, v.s.Type, "validation failed due to running out of cost budget, no further validation rules will be run"))
		r.budget = -1
		return false
	}
	r.budget -= int64(cost)
	if err != nil {
		msg := err.Error()
		switch {
		case strings.HasPrefix(msg, "operation cancelled: actual cost limit exceeded"):
			r.errs = append(r.errs, status.InvalidValue(p, v.s.Type, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", msg, ruleString(cr.rule))))
			r.budget = -1
			return false
		case strings.HasPrefix(msg, "operation interrupted"), r.ctx.Err() != nil:
			r.errs = append(r.errs, status.InvalidValue(p, v.s.Type, fmt.Sprintf("'%v': no further validation rules will be run due to the request's deadline", msg)))
			r.budget = -1
			return false
		case strings.HasPrefix(msg, "no such overload"):
			r.errs = append(r.errs, status.InvalidValue(p, v.s.Type, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", msg, ruleString(cr.rule))))
		default:
			r.errs = append(r.errs, status.InvalidValue(p, v.s.Type, fmt.Sprintf("%v evaluating rule: %v", msg, ruleString(cr.rule))))
		}
		return true
	}
	if val == types.True {
		return true
	}
	at := p
	if cr.hasPath {
		at = join(p, cr.path)
	}
	detail, ok := "", false
	if cr.msg != nil {
		var stop bool
		detail, ok, stop = v.message(r, at, cr, a)
		if stop {
			return false
		}
	}
	if !ok {
		detail = ruleMessage(cr.rule)
	}
	fe := fieldError(at, x, v.s.Type, detail, cr.rule.Reason)
	if !cr.usesOld && rt.unchanged() {
		r.warnings = append(r.warnings, rootField(fe).Error())
		return true
	}
	r.errs = append(r.errs, fe)
	return true
}

// message evaluates a messageExpression: the message and whether to use
// it, or stop when the budget ran out.
func (v *validator) message(r *run, at status.Path, cr *compiled, a *activation) (string, bool, bool) {
	val, det, err := cr.msg.ContextEval(r.ctx, a)
	if det == nil || det.ActualCost() == nil {
		r.errs = append(r.errs, status.InvalidValue(at, v.s.Type, fmt.Sprintf("runtime cost could not be calculated for messageExpression: %q", cr.rule.MessageExpression)))
		r.budget = -1
		return "", false, true
	}
	cost := *det.ActualCost()
	if cost > math.MaxInt64 || int64(cost) > r.budget {
		r.errs = append(r.errs, status.InvalidValue(at, v.s.Type, "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"))
		r.budget = -1
		return "", false, true
	}
	r.budget -= int64(cost)
	if err != nil {
		if strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded") {
			r.errs = append(r.errs, status.InvalidValue(at, v.s.Type, fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", cr.rule.MessageExpression)))
			r.budget = -1
			return "", false, true
		}
		return "", false, false
	}
	s, ok := val.Value().(string)
	s = strings.TrimSpace(s)
	if !ok || s == "" || len(s) > maxMessageBytes || strings.ContainsAny(s, "\r\n") {
		return "", false, false // the rule's message is used instead
	}
	return s, true, false
}

// join appends a rule's field path to the path of its node.
func join(p, rel status.Path) status.Path {
	s := rel.String()
	switch {
	case p.String() == "":
		return rel
	case s == "":
		return p
	}
	var out status.Path
	if s[0] == '[' {
		out = status.NewPath(p.String() + s)
	} else {
		out = status.NewPath(p.String() + "." + s)
	}
	return out
}

func ruleString(r schema.Rule) string {
	if m := strings.TrimSpace(r.Message); m != "" {
		return m
	}
	return strings.TrimSpace(r.Rule)
}

func ruleMessage(r schema.Rule) string {
	if m := strings.TrimSpace(r.Message); m != "" {
		return m
	}
	return "failed rule: " + strings.TrimSpace(r.Rule)
}

// fieldError reports a broken rule with its reason; objects and lists
// are not printed.
func fieldError(p status.Path, x any, typ, detail, reason string) *status.FieldError {
	switch reason {
	case schema.ReasonForbidden:
		return status.ForbiddenField(p, detail)
	case schema.ReasonRequired:
		return status.Required(p, detail)
	case schema.ReasonDuplicate:
		return status.Duplicate(p, x)
	}
	if typ == "object" || typ == "array" {
		return status.InvalidOmitValue(p, detail)
	}
	return status.InvalidValue(p, x, detail)
}

// rootField names the root of an object as kube-apiserver does in the
// errors of rules on it: "<nil>".
func rootField(e *status.FieldError) *status.FieldError {
	if e.Field == "" {
		e.Field = "<nil>"
	}
	return e
}
