package cel

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"sort"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// value converts the decoded JSON value x (map[string]any, []any,
// string, int64, float64, bool, nil) of node n to a CEL value. Objects,
// maps and lists are wrapped, not copied: their members are converted
// when a rule reads them.
func value(n *node, x any) ref.Val {
	if x == nil {
		return types.NullValue
	}
	switch n.kind {
	case kindObject, kindMap:
		if m, ok := x.(map[string]any); ok {
			return &mapVal{n: n, m: m}
		}
	case kindList:
		if l, ok := x.([]any); ok {
			return &listVal{n: n, l: l}
		}
	case kindString:
		if s, ok := x.(string); ok {
			return types.String(s)
		}
	case kindInt:
		switch v := x.(type) {
		case int64:
			return types.Int(v)
		case float64:
			return types.Int(int64(v))
		}
	case kindDouble:
		switch v := x.(type) {
		case int64:
			return types.Double(float64(v))
		case float64:
			return types.Double(v)
		}
	case kindBool:
		if b, ok := x.(bool); ok {
			return types.Bool(b)
		}
	case kindBytes, kindDuration, kindTimestamp, kindDate:
		if s, ok := x.(string); ok {
			return formatted(n.kind, s)
		}
	}
	return dyn(x)
}

// formatted parses a string of format byte, duration, date or date-time.
func formatted(k kind, s string) ref.Val {
	switch k {
	case kindBytes:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return types.NewErr("illegal base64 data: %v", err)
		}
		return types.Bytes(b)
	case kindDuration:
		d, err := time.ParseDuration(s)
		if err != nil {
			return types.NewErr("invalid duration %q: %v", s, err)
		}
		return types.Duration{Duration: d}
	case kindDate:
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return types.NewErr("invalid date %q: %v", s, err)
		}
		return types.Timestamp{Time: t}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return types.NewErr("invalid date-time %q: %v", s, err)
	}
	return types.Timestamp{Time: t}
}

// dyn converts a value the schema says nothing about.
func dyn(x any) ref.Val {
	switch v := x.(type) {
	case nil:
		return types.NullValue
	case map[string]any:
		return &mapVal{n: dynMap, m: v}
	case []any:
		return &listVal{n: dynList, l: v}
	case string:
		return types.String(v)
	case int64:
		return types.Int(v)
	case float64:
		return types.Double(v)
	case bool:
		return types.Bool(v)
	}
	return types.NewErr("unsupported value of type %T", x)
}

// mapVal is an object (its properties are its fields) or a map.
type mapVal struct {
	n *node
	m map[string]any
}

var (
	_ traits.Mapper = (*mapVal)(nil)
	_ traits.Lister = (*listVal)(nil)
)

// lookup returns the member under the CEL name key.
func (v *mapVal) lookup(key string) (ref.Val, bool) {
	if v.n.kind == kindObject {
		prop, ok := v.n.names[key]
		if !ok {
			return nil, false
		}
		x, ok := v.m[prop]
		if !ok {
			return nil, false
		}
		return value(v.n.fields[key], x), true
	}
	x, ok := v.m[key]
	if !ok {
		return nil, false
	}
	return value(v.n.elem, x), true
}

// keys lists the CEL names of the members present.
func (v *mapVal) keys() []string {
	if v.n.kind != kindObject {
		out := make([]string, 0, len(v.m))
		for k := range v.m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	out := make([]string, 0, len(v.n.order))
	for _, k := range v.n.order {
		if _, ok := v.m[v.n.names[k]]; ok {
			out = append(out, k)
		}
	}
	return out
}

func (v *mapVal) Find(key ref.Val) (ref.Val, bool) {
	k, ok := key.(types.String)
	if !ok {
		return types.ValOrErr(key, "no such overload"), false
	}
	return v.lookup(string(k))
}

func (v *mapVal) Get(key ref.Val) ref.Val {
	if val, ok := v.Find(key); ok {
		return val
	} else if types.IsError(val) {
		return val
	}
	return types.NewErr("no such key: %v", key)
}

func (v *mapVal) Contains(key ref.Val) ref.Val {
	val, ok := v.Find(key)
	if !ok && val != nil && types.IsError(val) {
		return val
	}
	return types.Bool(ok)
}

func (v *mapVal) IsSet(field ref.Val) ref.Val { return v.Contains(field) }

func (v *mapVal) Size() ref.Val { return types.Int(len(v.keys())) }

func (v *mapVal) Iterator() traits.Iterator { return &keyIter{keys: v.keys()} }

func (v *mapVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(traits.Mapper)
	if !ok {
		return types.False
	}
	keys := v.keys()
	if o.Size() != types.Int(len(keys)) {
		return types.False
	}
	for _, k := range keys {
		mine, _ := v.lookup(k)
		theirs, found := o.Find(types.String(k))
		if !found || mine.Equal(theirs) != types.True {
			return types.False
		}
	}
	return types.True
}

func (v *mapVal) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(v.m).AssignableTo(t) {
		return v.m, nil
	}
	return nil, fmt.Errorf("type conversion error from %s to %v", v.n.typ, t)
}

func (v *mapVal) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return v.n.typ
	}
	if t.TypeName() == v.n.typ.TypeName() {
		return v
	}
	return types.NewErr("type conversion error from '%s' to '%s'", v.n.typ, t)
}

func (v *mapVal) Type() ref.Type {
	if v.n.kind == kindObject {
		return v.n.typ
	}
	return types.MapType
}
func (v *mapVal) Value() any { return v.m }

type keyIter struct {
	keys []string
	i    int
}

func (it *keyIter) HasNext() ref.Val { return types.Bool(it.i < len(it.keys)) }
func (it *keyIter) Next() ref.Val {
	if it.i >= len(it.keys) {
		return nil
	}
	it.i++
	return types.String(it.keys[it.i-1])
}
func (it *keyIter) ConvertToNative(reflect.Type) (any, error) {
	return nil, fmt.Errorf("iterator has no native form")
}
func (it *keyIter) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("iterator has no conversions")
}
func (it *keyIter) Equal(ref.Val) ref.Val { return types.False }
func (it *keyIter) Type() ref.Type        { return types.IteratorType }
func (it *keyIter) Value() any            { return it.keys }
