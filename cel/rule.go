package cel

import (
	"sort"

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

// compileResult is what compiling one rule found, as kube-apiserver's
// compilation result holds it: the rule's error stops there, so a rule
// that does not compile has no cost and its messageExpression is not
// looked at.
type compileResult struct {
	compiled *compiled
	err      string // the rule's problem, for the cause at .rule
	msgErr   string // the messageExpression's, at .messageExpression
	cost     uint64 // the rule's estimated cost, once
	msgCost  uint64 // the messageExpression's
}

// compileRule compiles one rule and its messageExpression and estimates
// their costs.
func (c *compiler) compileRule(env *cel.Env, est *sizeEstimator, s *schema.Schema, r schema.Rule) *compileResult {
	res := &compileResult{compiled: &compiled{rule: r, optionalOld: r.OptionalOldSelf != nil && *r.OptionalOldSelf}}
	ast, iss := env.Compile(r.Rule)
	if iss.Err() != nil {
		res.err = "compilation failed: " + iss.String()
		return res
	}
	if ast.OutputType() != cel.BoolType {
		res.err = "cel expression must evaluate to a bool"
		return res
	}
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == "oldSelf" {
			res.compiled.usesOld = true
		}
	}
	prog, err := env.Program(ast, programOptions(c.engine.opts.PerCallLimit)...)
	if err != nil {
		res.err = "program instantiation failed: " + err.Error()
		return res
	}
	res.compiled.prog = prog
	cost, err := env.EstimateCost(ast, est)
	if err != nil {
		res.err = "cost estimation failed: " + err.Error()
		return res
	}
	res.cost = cost.Max
	if r.MessageExpression != "" {
		c.messageExpression(env, est, r, res)
	}
	if r.FieldPath != "" {
		res.compiled.path, _, err = s.RuleFieldPath(r.FieldPath)
		res.compiled.hasPath = err == nil
	}
	return res
}

// messageExpression compiles a rule's messageExpression into res.
func (c *compiler) messageExpression(env *cel.Env, est *sizeEstimator, r schema.Rule, res *compileResult) {
	ast, iss := env.Compile(r.MessageExpression)
	if iss.Err() != nil {
		res.msgErr = "messageExpression compilation failed: " + iss.String()
		return
	}
	if ast.OutputType() != cel.StringType {
		res.msgErr = "messageExpression must evaluate to a string"
		return
	}
	prog, err := env.Program(ast, programOptions(c.engine.opts.PerCallLimit)...)
	if err != nil {
		res.msgErr = "messageExpression instantiation failed: " + err.Error()
		return
	}
	cost, err := env.EstimateCost(ast, est)
	if err != nil {
		res.msgErr = "cost estimation failed for messageExpression: " + err.Error()
		return
	}
	res.compiled.msg, res.msgCost = prog, cost.Max
}

// report turns what compiling the rule at `at` found into kube-apiserver's
// causes, in its order: the rule's cost, its error, its
// messageExpression's error or cost, then where it may not use oldSelf
// (or optionalOldSelf). It counts the costs into the total.
func (c *compiler) report(res *compileResult, at status.Path, cardinality uint64, uncorrelated string) status.FieldErrors {
	var errs status.FieldErrors
	r := res.compiled.rule
	rulePath, msgPath := at.Child("rule"), at.Child("messageExpression")
	cost := mulSat(res.cost, cardinality)
	if cost > StaticCostLimit {
		errs = append(errs, status.ForbiddenField(rulePath, costMessage("estimated rule cost", cost, StaticCostLimit)))
	}
	c.cost.observe(rulePath, cost)
	if res.err != "" {
		errs = append(errs, status.InvalidValue(rulePath, ruleValue(r), res.err))
	}
	switch {
	case res.msgErr != "":
		errs = append(errs, status.InvalidValue(msgPath, ruleValue(r), res.msgErr))
	case res.compiled.msg != nil:
		if res.msgCost > StaticCostLimit {
			errs = append(errs, status.ForbiddenField(msgPath, costMessage("estimated messageExpression cost", res.msgCost, StaticCostLimit)))
		}
		c.cost.observe(msgPath, res.msgCost)
	}
	switch {
	case res.compiled.usesOld && uncorrelated != "":
		errs = append(errs, status.InvalidValue(rulePath, r.Rule,
			"oldSelf cannot be used on the uncorrelatable portion of the schema within "+uncorrelated))
	case !res.compiled.usesOld && r.OptionalOldSelf != nil:
		errs = append(errs, status.InvalidValue(at.Child("optionalOldSelf"), *r.OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
	}
	return errs
}

// shownRule is a rule as kube-apiserver shows it as the value of an
// error: its internal Go type, written as JSON (field names as in Go).
type shownRule struct {
	Rule              string
	Message           string
	MessageExpression string
	Reason            *string
	FieldPath         string
	OptionalOldSelf   *bool
}

func ruleValue(r schema.Rule) shownRule {
	out := shownRule{Rule: r.Rule, Message: r.Message, MessageExpression: r.MessageExpression,
		FieldPath: r.FieldPath, OptionalOldSelf: r.OptionalOldSelf}
	if r.Reason != "" {
		reason := r.Reason
		out.Reason = &reason
	}
	return out
}

// totalCost adds up the estimated costs of a schema's expressions and
// keeps the most expensive, as kube-apiserver does to say which rules
// make the total too high.
type totalCost struct {
	total uint64
	most  []pathCost // at most four, the most expensive first
}

type pathCost struct {
	path status.Path
	cost uint64
}

// observe counts one expression; those under 1% of the total limit are
// not named.
func (t *totalCost) observe(p status.Path, cost uint64) {
	t.total = addSat(t.total, cost)
	if cost < StaticTotalCostLimit/100 {
		return
	}
	t.most = append(t.most, pathCost{p, cost})
	sort.SliceStable(t.most, func(i, j int) bool { return t.most[i].cost > t.most[j].cost })
	if len(t.most) > 4 {
		t.most = t.most[:4]
	}
}

// errors are the causes of a total over the limit: each of the most
// expensive expressions, then the schema at root.
func (t *totalCost) errors(root status.Path) status.FieldErrors {
	if t.total <= StaticTotalCostLimit {
		return nil
	}
	var errs status.FieldErrors
	for _, m := range t.most {
		errs = append(errs, status.ForbiddenField(m.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
	}
	return append(errs, status.ForbiddenField(root, costMessage(
		"x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", t.total, StaticTotalCostLimit)))
}

func addSat(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}
