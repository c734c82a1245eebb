package cel

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// comparable are the element types isSorted, min and max accept.
var comparable = map[string]*cel.Type{
	"int": cel.IntType, "uint": cel.UintType, "double": cel.DoubleType, "bool": cel.BoolType,
	"string": cel.StringType, "bytes": cel.BytesType, "duration": cel.DurationType,
	"timestamp": cel.TimestampType,
}

// summable are the element types sum accepts, with the sum of none.
var summable = map[string]struct {
	t    *cel.Type
	zero ref.Val
}{
	"int": {cel.IntType, types.Int(0)}, "uint": {cel.UintType, types.Uint(0)},
	"double": {cel.DoubleType, types.Double(0)}, "duration": {cel.DurationType, types.Duration{}},
}

// listsLib is Kubernetes' list library: isSorted, sum, min, max,
// indexOf and lastIndexOf.
func listsLib() cel.EnvOption {
	l := &library{name: "lists", costs: map[string]overloadCost{}}
	var sorted, mins, maxs, sums []cel.FunctionOpt
	for name, t := range comparable {
		lt := cel.ListType(t)
		sorted = append(sorted, cel.MemberOverload("list_"+name+"_is_sorted", []*cel.Type{lt}, cel.BoolType, cel.UnaryBinding(isSorted)))
		mins = append(mins, cel.MemberOverload("list_"+name+"_min", []*cel.Type{lt}, t, cel.UnaryBinding(extreme(-1))))
		maxs = append(maxs, cel.MemberOverload("list_"+name+"_max", []*cel.Type{lt}, t, cel.UnaryBinding(extreme(1))))
		for _, id := range []string{"_is_sorted", "_min", "_max"} {
			l.costs["list_"+name+id] = scanCost(listFactor)
		}
	}
	for name, s := range summable {
		zero := s.zero
		sums = append(sums, cel.MemberOverload("list_"+name+"_sum", []*cel.Type{cel.ListType(s.t)}, s.t,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return sum(v, zero) })))
		l.costs["list_"+name+"_sum"] = scanCost(listFactor)
	}
	T := cel.TypeParamType("T")
	l.funcs = []cel.EnvOption{
		cel.Function("isSorted", sorted...),
		cel.Function("min", mins...),
		cel.Function("max", maxs...),
		cel.Function("sum", sums...),
		cel.Function("indexOf", cel.MemberOverload("list_a_index_of_a", []*cel.Type{cel.ListType(T), T}, cel.IntType,
			cel.BinaryBinding(func(l, e ref.Val) ref.Val { return indexOf(l, e, false) }))),
		cel.Function("lastIndexOf", cel.MemberOverload("list_a_last_index_of_a", []*cel.Type{cel.ListType(T), T}, cel.IntType,
			cel.BinaryBinding(func(l, e ref.Val) ref.Val { return indexOf(l, e, true) }))),
	}
	l.costs["list_a_index_of_a"] = scanCost(listFactor)
	l.costs["list_a_last_index_of_a"] = scanCost(listFactor)
	return l.option()
}

// items returns the elements of a list value.
func items(v ref.Val) ([]ref.Val, ref.Val) {
	l, ok := v.(traits.Lister)
	if !ok {
		return nil, types.MaybeNoSuchOverloadErr(v)
	}
	n := int(l.Size().(types.Int))
	out := make([]ref.Val, n)
	for i := range out {
		out[i] = l.Get(types.Int(i))
	}
	return out, nil
}

func compare(a, b ref.Val) (int, ref.Val) {
	c, ok := a.(traits.Comparer)
	if !ok {
		return 0, types.MaybeNoSuchOverloadErr(a)
	}
	r, ok := c.Compare(b).(types.Int)
	if !ok {
		return 0, types.MaybeNoSuchOverloadErr(b)
	}
	return int(r), nil
}

func isSorted(v ref.Val) ref.Val {
	l, err := items(v)
	if err != nil {
		return err
	}
	for i := 1; i < len(l); i++ {
		c, err := compare(l[i-1], l[i])
		if err != nil {
			return err
		}
		if c > 0 {
			return types.False
		}
	}
	return types.True
}

// extreme returns min (sign -1) or max (sign 1).
func extreme(sign int) func(ref.Val) ref.Val {
	return func(v ref.Val) ref.Val {
		l, err := items(v)
		if err != nil {
			return err
		}
		if len(l) == 0 {
			if sign < 0 {
				return types.NewErr("min called on empty list")
			}
			return types.NewErr("max called on empty list")
		}
		best := l[0]
		for _, e := range l[1:] {
			c, err := compare(e, best)
			if err != nil {
				return err
			}
			if c*sign > 0 {
				best = e
			}
		}
		return best
	}
}

func sum(v, zero ref.Val) ref.Val {
	l, err := items(v)
	if err != nil {
		return err
	}
	acc := zero
	for _, e := range l {
		a, ok := acc.(traits.Adder)
		if !ok {
			return types.MaybeNoSuchOverloadErr(acc)
		}
		if acc = a.Add(e); types.IsError(acc) {
			return acc
		}
	}
	return acc
}

func indexOf(v, e ref.Val, last bool) ref.Val {
	l, err := items(v)
	if err != nil {
		return err
	}
	found := -1
	for i, x := range l {
		if x.Equal(e) == types.True {
			found = i
			if !last {
				break
			}
		}
	}
	return types.Int(found)
}
