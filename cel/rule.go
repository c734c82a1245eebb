package cel

import (
	"fmt"

	"github.com/google/cel-go/cel"

	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// compiled is one rule ready to run.
type compiled struct {
	rule        schema.Rule
	prog        cel.Program
	msg         cel.Program // messageExpression, if any
	usesOld     bool
	optionalOld bool
	path        status.Path // fieldPath, relative to the node
	hasPath     bool
}

// rule compiles one rule and checks its cost; at is its place in the
// document. It returns the rule, or nil, and the problems found.
func (c *compiler) rule(env *cel.Env, est *sizeEstimator, s *schema.Schema, r schema.Rule, at string, cardinality uint64, uncorrelated string) (*compiled, []string) {
	var errs []string
	invalid := func(field string, v any, detail string) {
		errs = append(errs, fmt.Sprintf("%s.%s: Invalid value: %s: %s", at, field, quote(v), detail))
	}
	ast, iss := env.Compile(r.Rule)
	if iss.Err() != nil {
		invalid("rule", r.Rule, "compilation failed: "+iss.String())
		return nil, errs
	}
	if ast.OutputType() != cel.BoolType {
		invalid("rule", r.Rule, "cel expression must evaluate to a bool")
		return nil, errs
	}
	cr := &compiled{rule: r, optionalOld: r.OptionalOldSelf != nil && *r.OptionalOldSelf}
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == "oldSelf" {
			cr.usesOld = true
		}
	}
	opts := programOptions(c.engine.opts.PerCallLimit)
	prog, err := env.Program(ast, opts...)
	if err != nil {
		invalid("rule", r.Rule, "program instantiation failed: "+err.Error())
		return nil, errs
	}
	cr.prog = prog
	cost, err := env.EstimateCost(ast, est)
	if err != nil {
		errs = append(errs, fmt.Sprintf("%s.rule: Internal error: cost estimation failed: %v", at, err))
		return nil, errs
	}
	total := mulSat(cost.Max, cardinality)
	if total > StaticCostLimit {
		errs = append(errs, fmt.Sprintf("%s.rule: Forbidden: %s", at, costMessage("estimated rule cost", total, StaticCostLimit)))
	}
	c.total = addSat(c.total, total)
	switch {
	case cr.usesOld && uncorrelated != "":
		invalid("rule", r.Rule, "oldSelf cannot be used on the uncorrelatable portion of the schema within "+uncorrelated)
	case !cr.usesOld && r.OptionalOldSelf != nil:
		invalid("optionalOldSelf", *r.OptionalOldSelf, "may not be set if oldSelf is not used in rule")
	}
	if r.MessageExpression != "" {
		cr.msg, errs = c.messageExpression(env, est, r, at, errs)
	}
	if r.FieldPath != "" {
		cr.path, _, err = s.RuleFieldPath(r.FieldPath)
		cr.hasPath = err == nil
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return cr, nil
}

func (c *compiler) messageExpression(env *cel.Env, est *sizeEstimator, r schema.Rule, at string, errs []string) (cel.Program, []string) {
	invalid := func(detail string) []string {
		return append(errs, fmt.Sprintf("%s.messageExpression: Invalid value: %s: %s", at, quote(r.MessageExpression), detail))
	}
	ast, iss := env.Compile(r.MessageExpression)
	if iss.Err() != nil {
		return nil, invalid("messageExpression compilation failed: " + iss.String())
	}
	if ast.OutputType() != cel.StringType {
		return nil, invalid("messageExpression must evaluate to a string")
	}
	prog, err := env.Program(ast, programOptions(c.engine.opts.PerCallLimit)...)
	if err != nil {
		return nil, invalid("messageExpression instantiation failed: " + err.Error())
	}
	cost, err := env.EstimateCost(ast, est)
	if err != nil {
		return nil, append(errs, fmt.Sprintf("%s.messageExpression: Internal error: cost estimation failed for messageExpression: %v", at, err))
	}
	if cost.Max > StaticCostLimit {
		errs = append(errs, fmt.Sprintf("%s.messageExpression: Forbidden: %s", at,
			costMessage("estimated messageExpression cost", cost.Max, StaticCostLimit)))
	}
	c.total = addSat(c.total, cost.Max)
	return prog, errs
}

func quote(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

func addSat(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}
