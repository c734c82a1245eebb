package cel

import (
	"math"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
)

// stringFactor is the cost of scanning one character, listFactor of
// visiting one list item, as in CEL's own cost model.
const (
	stringFactor = 0.1
	listFactor   = 1.0
)

// sizeOf estimates the size of an expression's value.
func sizeOf(est checker.CostEstimator, n checker.AstNode) checker.SizeEstimate {
	if s := n.ComputedSize(); s != nil {
		return *s
	}
	if s := est.EstimateSize(n); s != nil {
		return *s
	}
	return checker.SizeEstimate{Min: 0, Max: math.MaxUint64}
}

// operand is the receiver of a member call, or the first argument.
func operand(target *checker.AstNode, args []checker.AstNode, i int) (checker.AstNode, bool) {
	if target != nil {
		if i == 0 {
			return *target, true
		}
		i--
	}
	if i < len(args) {
		return args[i], true
	}
	return nil, false
}

// scanEstimate estimates a call that scans its first operand.
func scanEstimate(factor float64) checker.FunctionEstimator {
	return func(est checker.CostEstimator, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
		n, ok := operand(target, args, 0)
		if !ok {
			return nil
		}
		c := sizeOf(est, n).MultiplyByCostFactor(factor).Add(checker.FixedCostEstimate(1))
		return &checker.CallEstimate{CostEstimate: c}
	}
}

// productEstimate estimates a call that scans its first operand once per
// element of its second (a regular expression over a string).
func productEstimate(factor float64) checker.FunctionEstimator {
	return func(est checker.CostEstimator, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
		a, ok1 := operand(target, args, 0)
		b, ok2 := operand(target, args, 1)
		if !ok1 || !ok2 {
			return nil
		}
		sa, sb := sizeOf(est, a), sizeOf(est, b)
		c := checker.CostEstimate{Min: 1, Max: mulSat(sa.Max, sb.Max)}.MultiplyByCostFactor(factor).Add(checker.FixedCostEstimate(1))
		return &checker.CallEstimate{CostEstimate: c}
	}
}

// scanTracker measures a call that scanned its first argument.
func scanTracker(factor float64) interpreter.FunctionTracker {
	return func(args []ref.Val, _ ref.Val) *uint64 {
		c := 1 + uint64(math.Ceil(float64(actualSize(args[0]))*factor))
		return &c
	}
}

// productTracker measures a call that scanned its first argument once
// per element of its second.
func productTracker(factor float64) interpreter.FunctionTracker {
	return func(args []ref.Val, _ ref.Val) *uint64 {
		c := 1 + uint64(math.Ceil(float64(mulSat(actualSize(args[0]), actualSize(args[1])))*factor))
		return &c
	}
}

func actualSize(v ref.Val) uint64 {
	if s, ok := v.(traits.Sizer); ok {
		if n, ok := s.Size().(types.Int); ok && n > 0 {
			return uint64(n)
		}
	}
	return 1
}

func mulSat(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}

// overloadCost is the estimate and the measure of one overload's cost.
type overloadCost struct {
	est   checker.FunctionEstimator
	track interpreter.FunctionTracker
}

func scanCost(factor float64) overloadCost {
	return overloadCost{scanEstimate(factor), scanTracker(factor)}
}

func productCost(factor float64) overloadCost {
	return overloadCost{productEstimate(factor), productTracker(factor)}
}

// library is a set of functions and the costs of their overloads.
type library struct {
	name  string
	funcs []cel.EnvOption
	costs map[string]overloadCost
}

func (l *library) LibraryName() string { return "kapi." + l.name }

func (l *library) CompileOptions() []cel.EnvOption {
	opts := append([]cel.EnvOption(nil), l.funcs...)
	for id, c := range l.costs {
		opts = append(opts, cel.CostEstimatorOptions(checker.OverloadCostEstimate(id, c.est)))
	}
	return opts
}

func (l *library) ProgramOptions() []cel.ProgramOption {
	var opts []cel.ProgramOption
	for id, c := range l.costs {
		opts = append(opts, cel.CostTrackerOptions(interpreter.OverloadCostTracker(id, c.track)))
	}
	return opts
}

func (l *library) option() cel.EnvOption { return cel.Lib(l) }
