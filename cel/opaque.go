package cel

import (
	"fmt"
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// opaque is a value of a library type (URL, Semver, Format) that rules
// can only pass to that library's functions.
type opaque[T any] struct {
	t     *types.Type
	v     T
	equal func(a, b T) bool
}

func (o opaque[T]) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(o.v).AssignableTo(t) {
		return o.v, nil
	}
	return nil, fmt.Errorf("type conversion error from '%s' to '%v'", o.t, t)
}

func (o opaque[T]) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case types.TypeType:
		return o.t
	case o.t:
		return o
	}
	return types.NewErr("type conversion error from '%s' to '%s'", o.t, t)
}

func (o opaque[T]) Equal(other ref.Val) ref.Val {
	p, ok := other.(opaque[T])
	return types.Bool(ok && o.equal(o.v, p.v))
}

func (o opaque[T]) Type() ref.Type { return o.t }
func (o opaque[T]) Value() any     { return o.v }

// unwrap returns the Go value of an opaque value of type T.
func unwrap[T any](v ref.Val) (T, ref.Val) {
	o, ok := v.(opaque[T])
	if !ok {
		var zero T
		return zero, types.MaybeNoSuchOverloadErr(v)
	}
	return o.v, nil
}
