package admission

import (
	"context"
	"errors"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
)

// Conditions are compiled matchConditions.
type Conditions struct {
	names []string
	progs []*program
	// budget is the runtime budget all the conditions share for one
	// request.
	budget int64
}

// CompileConditions compiles the matchConditions of a webhook (without
// params). An expression that does not compile is not an error here: it
// fails when evaluated, so that the caller applies failurePolicy, as
// kube-apiserver does.
func (c *Compiler) CompileConditions(conds []arv1.MatchCondition) (*Conditions, error) {
	return c.compileConditions(conds, envSpec{})
}

func (c *Compiler) compileConditions(conds []arv1.MatchCondition, spec envSpec) (*Conditions, error) {
	env, err := c.env(spec)
	if err != nil {
		return nil, err
	}
	out := &Conditions{budget: ConditionsBudget}
	for _, mc := range conds {
		out.names = append(out.names, mc.Name)
		out.progs = append(out.progs, compile(env, mc.Expression, cel.BoolType))
	}
	return out, nil
}

// Match evaluates the conditions on in, in order: matched is true when
// every condition is true; the first false one gives matched false with
// its name in failed, even after others failed to evaluate. Otherwise
// the errors of the conditions that failed to evaluate are err (kube's
// aggregate: "[e1, e2]" for several); the caller applies failurePolicy.
func (cs *Conditions) Match(ctx context.Context, in *Input) (matched bool, failed string, err error) {
	return cs.match(newActivation(ctx, in, cs.budget, nil))
}

func (cs *Conditions) match(a *activation) (bool, string, error) {
	if cs == nil || len(cs.progs) == 0 {
		return true, "", nil
	}
	var errs []error
	for i, p := range cs.progs {
		out, evalErr, err := a.eval(p)
		if err != nil {
			return false, "", err
		}
		if evalErr != nil {
			errs = append(errs, evalErr)
			continue
		}
		if out == types.False {
			return false, cs.names[i], nil
		}
	}
	if len(errs) > 0 {
		return false, "", aggregate(errs)
	}
	return true, "", nil
}

// aggregate joins errors as kube's aggregate error prints them.
func aggregate(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return errors.New("[" + strings.Join(msgs, ", ") + "]")
}
