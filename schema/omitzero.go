package schema

import (
	"reflect"
	"strings"
)

// isZeroer is the method encoding/json asks a value tagged omitzero
// whether it is zero by, when its type has one.
type isZeroer interface{ IsZero() bool }

var isZeroerType = reflect.TypeFor[isZeroer]()

// OmitsZero returns the test by which encoding/json leaves the value of
// struct field f out of its JSON form for the omitzero option: the
// value's IsZero method when its type has one, else the zero value of
// the type. It returns nil when f's tag does not say omitzero.
//
// A struct field tagged omitzero is how a Go type can leave an object
// out: a struct value (not a pointer) is otherwise always written, as
// {} when empty. Defaulting treats it as absent when the test says zero
// (see [Defaulter]).
func OmitsZero(f reflect.StructField) func(reflect.Value) bool {
	_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	if !hasOption(opts, "omitzero") {
		return nil
	}
	t := f.Type
	switch {
	case t.Kind() == reflect.Interface && t.Implements(isZeroerType):
		return func(v reflect.Value) bool {
			return v.IsNil() || v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil() || v.Interface().(isZeroer).IsZero()
		}
	case t.Kind() == reflect.Pointer && t.Implements(isZeroerType):
		return func(v reflect.Value) bool { return v.IsNil() || v.Interface().(isZeroer).IsZero() }
	case t.Implements(isZeroerType):
		return func(v reflect.Value) bool { return v.Interface().(isZeroer).IsZero() }
	case reflect.PointerTo(t).Implements(isZeroerType):
		return func(v reflect.Value) bool {
			if !v.CanAddr() {
				c := reflect.New(v.Type()).Elem()
				c.Set(v)
				v = c
			}
			return v.Addr().Interface().(isZeroer).IsZero()
		}
	}
	return reflect.Value.IsZero
}

// Hides reports whether v, of the Defaulter's type, holds a struct field
// tagged omitzero whose value is zero on a path with defaults. Such a
// field reads as absent, so its defaults are not applied; but the JSON v
// was decoded from may have held the object (as {}, or with members
// that decode to zero), and kube-apiserver defaults an object that is
// present. [Defaulter.DefaultDecoded], given that JSON, tells them
// apart. Hides is false at once for a type without such fields.
func (d *Defaulter) Hides(v reflect.Value) bool {
	if d.Empty() || !d.root.hides || v.Type() != d.t {
		return false
	}
	return d.root.hidden(v)
}

// DefaultDecoded is [Defaulter.Default] for a value just decoded from
// JSON whose decoded form is x (maps, slices and scalars, as
// encoding/json decodes into any): a struct field tagged omitzero whose
// value is zero is defaulted as present when x holds it as an object, as
// kube-apiserver defaults the object a request sent, even empty, and
// leaves out one it did not send.
func (d *Defaulter) DefaultDecoded(v reflect.Value, x any) (bool, error) {
	return d.defaultValue(v, x)
}

// hidden walks the paths with defaults for a zero struct tagged omitzero.
func (n *dnode) hidden(v reflect.Value) bool {
	switch n.kind {
	case reflect.Pointer:
		return !v.IsNil() && n.elem.hidden(v.Elem())
	case reflect.Struct:
		for i := range n.fields {
			f := &n.fields[i]
			fv := v.Field(f.index)
			if f.hides && f.omitZero(fv) {
				return true
			}
			if f.node != nil && f.node.hides && !f.missing(fv) && f.node.hidden(fv) {
				return true
			}
		}
	case reflect.Slice:
		if n.elem != nil && n.elem.hides {
			for i := range v.Len() {
				if n.elem.hidden(v.Index(i)) {
					return true
				}
			}
		}
	case reflect.Map:
		if n.elem != nil && n.elem.hides {
			for it := v.MapRange(); it.Next(); {
				if n.elem.hidden(it.Value()) {
					return true
				}
			}
		}
	}
	return false
}

// setHides marks n when a struct tagged omitzero is on its paths.
func (n *dnode) setHides() {
	switch n.kind {
	case reflect.Struct:
		for i := range n.fields {
			f := &n.fields[i]
			n.hides = n.hides || f.hides || f.node != nil && f.node.hides
		}
	default:
		n.hides = n.elem != nil && n.elem.hides
	}
}

// member returns the member name of the decoded object x, when x is one.
func member(x any, name string) any {
	m, _ := x.(map[string]any)
	return m[name]
}

// item returns item i of the decoded array x, when x is one of n items.
func item(x any, i, n int) any {
	l, _ := x.([]any)
	if len(l) != n {
		return nil
	}
	return l[i]
}
