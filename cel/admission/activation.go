package admission

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
)

// errOutOfBudget is the error of an evaluation that spent the runtime
// budget: no further expression runs.
var errOutOfBudget = errors.New("validation failed due to running out of cost budget, no further validation rules will be run")

// activation holds the variables of one evaluation and the budget its
// expressions share.
type activation struct {
	ctx    context.Context
	values map[string]ref.Val
	vars   *lazyVars
	// budget is what remains of the runtime budget.
	budget int64
	// varCost is the cost variables spent since it was last charged.
	varCost int64
}

var _ interpreter.Activation = (*activation)(nil)

func (a *activation) ResolveName(name string) (any, bool) {
	if name == varVariables && a.vars != nil {
		return a.vars, true
	}
	v, ok := a.values[name]
	return v, ok
}

func (a *activation) Parent() interpreter.Activation { return nil }

// eval evaluates p, charging its cost (and that of the variables it
// read) to the budget. A compile or evaluation error is returned as a
// result error; errOutOfBudget as the call's error.
func (a *activation) eval(p *program) (ref.Val, error, error) {
	if p.err != nil {
		return nil, fmt.Errorf("compilation error: %w", p.err), nil
	}
	out, det, err := p.prog.ContextEval(a.ctx, a)
	cost := a.varCost
	a.varCost = 0
	if det != nil && det.ActualCost() != nil {
		c := *det.ActualCost()
		if c > math.MaxInt64-uint64(cost) {
			return nil, nil, errOutOfBudget
		}
		cost += int64(c)
	}
	if cost > a.budget {
		return nil, nil, errOutOfBudget
	}
	a.budget -= cost
	if err != nil {
		return nil, fmt.Errorf("expression '%v' resulted in error: %v", p.expr, err), nil
	}
	return out, nil, nil
}

// lazyVars is the variables object: each variable is evaluated when an
// expression first reads it, and its value reused by the others.
type lazyVars struct {
	a     *activation
	progs map[string]*program
	done  map[string]ref.Val
}

var _ traits.Mapper = (*lazyVars)(nil)

func (v *lazyVars) get(name string) (ref.Val, bool) {
	if val, ok := v.done[name]; ok {
		return val, true
	}
	p, ok := v.progs[name]
	if !ok {
		return nil, false
	}
	var val ref.Val
	if p.err != nil {
		val = types.NewErr("composited variable %q fails to compile: %v", name, p.err)
	} else {
		out, det, err := p.prog.ContextEval(v.a.ctx, v.a)
		if det != nil && det.ActualCost() != nil {
			v.a.varCost += int64(*det.ActualCost())
		}
		val = out
		if err != nil {
			val = types.NewErr("composited variable %q fails to evaluate: %v", name, err)
		}
	}
	v.done[name] = val
	return val, true
}

func (v *lazyVars) Find(key ref.Val) (ref.Val, bool) {
	name, ok := key.(types.String)
	if !ok {
		return nil, false
	}
	return v.get(string(name))
}

func (v *lazyVars) Get(key ref.Val) ref.Val {
	if val, ok := v.Find(key); ok {
		return val
	}
	return types.NewErr("no such key: %v", key)
}

func (v *lazyVars) Contains(key ref.Val) ref.Val {
	name, ok := key.(types.String)
	if !ok {
		return types.False
	}
	_, found := v.progs[string(name)]
	return types.Bool(found)
}

func (v *lazyVars) IsSet(field ref.Val) ref.Val { return v.Contains(field) }
func (v *lazyVars) Size() ref.Val               { return types.Int(len(v.progs)) }
func (v *lazyVars) Iterator() traits.Iterator {
	return types.NewStringList(types.DefaultTypeAdapter, v.names()).Iterator()
}
func (v *lazyVars) names() []string {
	out := make([]string, 0, len(v.progs))
	for n := range v.progs {
		out = append(out, n)
	}
	return out
}
func (v *lazyVars) ConvertToNative(reflect.Type) (any, error) {
	return nil, errors.New("variables cannot be converted")
}
func (v *lazyVars) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return cel.ObjectType(variablesTypeName)
	}
	return types.NewErr("type conversion error from '%s' to '%s'", variablesTypeName, t)
}
func (v *lazyVars) Equal(ref.Val) ref.Val { return types.False }
func (v *lazyVars) Type() ref.Type        { return cel.ObjectType(variablesTypeName) }
func (v *lazyVars) Value() any            { return v }
