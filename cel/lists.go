package cel

import (
	"fmt"
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// listVal is an array. Lists of list-type set and map compare without
// regard to order; adding to them merges as server-side apply would:
// a set gains the items it lacks, a map's items are replaced by key.
type listVal struct {
	n *node
	l []any
}

func (v *listVal) item(i int) ref.Val { return value(v.n.elem, v.l[i]) }

func (v *listVal) Get(index ref.Val) ref.Val {
	i, err := types.IndexOrError(index)
	if err != nil {
		return types.WrapErr(err)
	}
	if i < 0 || i >= len(v.l) {
		return types.NewErr("index out of bounds: %d", i)
	}
	return v.item(i)
}

func (v *listVal) Size() ref.Val { return types.Int(len(v.l)) }

func (v *listVal) Contains(elem ref.Val) ref.Val {
	for i := range v.l {
		if v.item(i).Equal(elem) == types.True {
			return types.True
		}
	}
	return types.False
}

func (v *listVal) Iterator() traits.Iterator { return &listIter{v: v} }

func (v *listVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok || o.Size() != types.Int(len(v.l)) {
		return types.False
	}
	switch v.n.listType {
	case "set":
		for i := range v.l {
			if o.Contains(v.item(i)) != types.True {
				return types.False
			}
		}
		return types.True
	case "map":
		for i := range v.l {
			j := findByKeys(v.n, o, v.l[i])
			if j < 0 || v.item(i).Equal(o.Get(types.Int(j))) != types.True {
				return types.False
			}
		}
		return types.True
	}
	for i := range v.l {
		if v.item(i).Equal(o.Get(types.Int(i))) != types.True {
			return types.False
		}
	}
	return types.True
}

// findByKeys returns the index in o of the list-map item with the same
// keys as x, or -1.
func findByKeys(n *node, o traits.Lister, x any) int {
	obj, ok := x.(map[string]any)
	if !ok {
		return -1
	}
	size := int(o.Size().(types.Int))
	for j := 0; j < size; j++ {
		m, ok := o.Get(types.Int(j)).(traits.Mapper)
		if !ok {
			continue
		}
		same := true
		for _, k := range n.keys {
			esc, _ := escape(k)
			theirs, found := m.Find(types.String(esc))
			mine, present := obj[k]
			if found != present || present && value(n.elem.fields[esc], mine).Equal(theirs) != types.True {
				same = false
				break
			}
		}
		if same {
			return j
		}
	}
	return -1
}

// Add concatenates, or merges lists of type set and map.
func (v *listVal) Add(other ref.Val) ref.Val {
	o, ok := other.(traits.Lister)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	out := make([]ref.Val, 0, len(v.l))
	for i := range v.l {
		out = append(out, v.item(i))
	}
	size := int(o.Size().(types.Int))
	for j := 0; j < size; j++ {
		e := o.Get(types.Int(j))
		switch v.n.listType {
		case "set":
			if v.Contains(e) == types.True {
				continue
			}
		case "map":
			if raw, ok := e.Value().(map[string]any); ok {
				if i := findByKeys(v.n, v, raw); i >= 0 {
					out[i] = e
					continue
				}
			}
		}
		out = append(out, e)
	}
	return types.NewRefValList(types.DefaultTypeAdapter, out)
}

func (v *listVal) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(v.l).AssignableTo(t) {
		return v.l, nil
	}
	if t.Kind() == reflect.Slice {
		out := reflect.MakeSlice(t, len(v.l), len(v.l))
		for i := range v.l {
			e, err := v.item(i).ConvertToNative(t.Elem())
			if err != nil {
				return nil, err
			}
			out.Index(i).Set(reflect.ValueOf(e))
		}
		return out.Interface(), nil
	}
	return nil, fmt.Errorf("type conversion error from list to %v", t)
}

func (v *listVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.TypeType:
		return v.n.typ
	case types.ListType:
		return v
	}
	return types.NewErr("type conversion error from '%s' to '%s'", v.n.typ, t)
}

func (v *listVal) Type() ref.Type { return types.ListType }
func (v *listVal) Value() any     { return v.l }

type listIter struct {
	v *listVal
	i int
}

func (it *listIter) HasNext() ref.Val { return types.Bool(it.i < len(it.v.l)) }
func (it *listIter) Next() ref.Val {
	if it.i >= len(it.v.l) {
		return nil
	}
	it.i++
	return it.v.item(it.i - 1)
}
func (it *listIter) ConvertToNative(reflect.Type) (any, error) {
	return nil, fmt.Errorf("iterator has no native form")
}
func (it *listIter) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("iterator has no conversions")
}
func (it *listIter) Equal(ref.Val) ref.Val { return types.False }
func (it *listIter) Type() ref.Type        { return types.IteratorType }
func (it *listIter) Value() any            { return it.v.l }
