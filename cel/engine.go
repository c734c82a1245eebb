package cel

import (
	"fmt"
	"sort"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"

	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// Options tunes an Engine; the zero value has kube-apiserver's limits.
type Options struct {
	// PerCallLimit bounds the cost of one evaluation of one expression;
	// default PerCallLimit.
	PerCallLimit uint64
	// RuntimeBudget bounds the cost of all of one request's rules;
	// default RuntimeBudget.
	RuntimeBudget int64
}

// Engine compiles and evaluates x-kubernetes-validations. It is safe for
// concurrent use; build one per server.
type Engine struct {
	opts Options
	base *cel.Env
}

var _ schema.RuleEngine = (*Engine)(nil)

// New returns an engine with the libraries described in the package
// documentation.
func New(opts Options) (*Engine, error) {
	if opts.PerCallLimit == 0 {
		opts.PerCallLimit = PerCallLimit
	}
	if opts.RuntimeBudget == 0 {
		opts.RuntimeBudget = RuntimeBudget
	}
	env, err := baseEnv()
	if err != nil {
		return nil, fmt.Errorf("cel: building the environment: %w", err)
	}
	return &Engine{opts: opts, base: env}, nil
}

// Compile compiles every rule of the kind schema s, named root in the
// errors. The error is a status.FieldErrors with one error per rule that
// does not compile, is not a bool, uses oldSelf where no old value
// correlates, or may cost more than the limits, at the rule's path and
// worded as kube-apiserver words them for a CRD, in its order: the
// rules below a node before the node's own, a node's map values before
// its properties (by name) before its items; the total's errors last.
func (e *Engine) Compile(s *schema.Schema, root status.Path) (schema.RuleValidator, error) {
	ts := typeSet{}
	rootNode := ts.build(s, "Object", true)
	c := &compiler{engine: e, prov: &provider{Provider: e.base.CELTypeProvider(), objects: ts}}
	v := c.tree(s, rootNode, root, 1, true, "")
	c.errs = append(c.errs, c.cost.errors(root)...)
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return &Validator{root: v, opts: e.opts}, nil
}

// compiler carries one Compile call.
type compiler struct {
	engine *Engine
	prov   *provider
	errs   status.FieldErrors
	cost   totalCost
}

// tree compiles the rules of s and its descendants. where is the node's
// path in the document, for errors; cardinality how many times the node
// may occur in one object (bounded says it is a product of schema
// limits); uncorrelated, when not empty, names the node above whose
// descendants have no old counterpart (the items of a list that is not
// a list-type map).
func (c *compiler) tree(s *schema.Schema, n *node, where status.Path, cardinality uint64, bounded bool, uncorrelated string) *validator {
	if s == nil || !schema.HasRules(s) {
		return nil
	}
	v := &validator{n: n, s: s}
	if s.AdditionalProperties != nil && n.kind == kindMap {
		card, ok := mulSat(cardinality, n.maxElements), bounded && n.bounded
		v.values = c.tree(s.AdditionalProperties, n.elem, where.Child("additionalProperties"), card, ok, uncorrelated)
	}
	for _, prop := range sortedProperties(s) {
		ps := s.Properties[prop]
		if !schema.HasRules(ps) {
			continue
		}
		child := c.childNode(n, prop, ps)
		if cv := c.tree(ps, child, where.Child("properties").Key(prop), cardinality, bounded, uncorrelated); cv != nil {
			if v.props == nil {
				v.props = map[string]*validator{}
			}
			v.props[prop] = cv
			v.order = append(v.order, prop)
		}
	}
	if s.Items != nil && n.elem != nil {
		card, ok := mulSat(cardinality, n.maxElements), bounded && n.bounded
		u := uncorrelated
		if u == "" && s.XListType != "map" {
			u = where.String()
		}
		v.items = c.tree(s.Items, n.elem, where.Child("items"), card, ok, u)
	}
	if len(s.XValidations) > 0 {
		c.rules(v, where, cardinality, bounded, uncorrelated)
	}
	if len(v.rules) == 0 && v.props == nil && v.items == nil && v.values == nil {
		return nil
	}
	return v
}

// sortedProperties lists the names of the properties of s in order.
func sortedProperties(s *schema.Schema) []string {
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// childNode returns the node of a property, building one for a property
// CEL cannot name (rules on it still see it as self).
func (c *compiler) childNode(n *node, prop string, ps *schema.Schema) *node {
	if esc, ok := escape(prop); ok && n.fields[esc] != nil {
		return n.fields[esc]
	}
	return c.prov.objects.build(ps, fmt.Sprintf("Object.@%d", len(c.prov.objects)), ps.XEmbeddedResource)
}

// rules compiles the rules of one node.
func (c *compiler) rules(v *validator, where status.Path, cardinality uint64, bounded bool, uncorrelated string) {
	env, optEnv, err := c.envs(v.n)
	if err != nil {
		c.errs = append(c.errs, status.InvalidValue(where.Child("x-kubernetes-validations"), nil,
			"internal error: failed to construct type information for x-kubernetes-validations rules: "+err.Error()))
		return
	}
	est := &sizeEstimator{root: v.n}
	if !bounded {
		cardinality = MaxRequestBytes / (v.n.minSize + 1)
	}
	for i, r := range v.s.XValidations {
		ruleEnv := env
		if r.OptionalOldSelf != nil && *r.OptionalOldSelf {
			ruleEnv = optEnv
		}
		res := c.compileRule(ruleEnv, est, v.s, r)
		errs := c.report(res, where.Child("x-kubernetes-validations").Index(i), cardinality, uncorrelated)
		if len(errs) > 0 {
			c.errs = append(c.errs, errs...)
			continue
		}
		v.rules = append(v.rules, res.compiled)
	}
}

// envs returns the environments of a node's rules: self and oldSelf of
// the node's type, and oldSelf optional.
func (c *compiler) envs(n *node) (*cel.Env, *cel.Env, error) {
	env, err := c.engine.base.Extend(cel.CustomTypeProvider(c.prov),
		cel.Variable("self", n.typ), cel.Variable("oldSelf", n.typ))
	if err != nil {
		return nil, nil, err
	}
	opt, err := c.engine.base.Extend(cel.CustomTypeProvider(c.prov),
		cel.Variable("self", n.typ), cel.Variable("oldSelf", cel.OptionalType(n.typ)))
	return env, opt, err
}

// costMessage says by how much an estimated cost exceeds its limit.
func costMessage(what string, cost, limit uint64) string {
	f := float64(cost) / float64(limit)
	var factor string
	switch {
	case f > 100:
		factor = "more than 100x"
	case f < 1.5:
		factor = fmt.Sprintf("%fx", f)
	default:
		factor = fmt.Sprintf("%.1fx", f)
	}
	return fmt.Sprintf("%s exceeds budget by factor of %s (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)", what, factor)
}

// sizeEstimator gives the checker the sizes the schema allows.
type sizeEstimator struct{ root *node }

func (e *sizeEstimator) EstimateSize(el checker.AstNode) *checker.SizeEstimate {
	path := el.Path()
	if len(path) == 0 || path[0] != "self" && path[0] != "oldSelf" {
		return nil
	}
	cur := e.root
	for _, step := range path[1:] {
		switch step {
		case "@items", "@values":
			cur = cur.elem
		case "@keys":
			return &checker.SizeEstimate{Min: 0, Max: MaxRequestBytes}
		default:
			cur = cur.fields[step]
		}
		if cur == nil {
			return nil
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: cur.maxElements}
}

// EstimateCallCost prices equality of the libraries' opaque values,
// which CEL cannot size.
func (e *sizeEstimator) EstimateCallCost(function, _ string, _ *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	if function != "_==_" && function != "_!=_" || len(args) != 2 || args[0].Type().Equal(args[1].Type()) != types.True {
		return nil
	}
	switch args[0].Type().TypeName() {
	case semverType.TypeName():
		return &checker.CallEstimate{CostEstimate: checker.FixedCostEstimate(1)}
	case formatType.TypeName():
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: 7}}
	case urlType.TypeName():
		return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 1, Max: 1 + MaxRequestBytes/10}}
	}
	return nil
}
