package schema

import (
	"reflect"
	"sort"
	"strings"

	"github.com/kapi-dev/kapi/status"
)

// MissingRequired reports, as FieldValueRequired errors under p, the
// required properties that x, a decoded JSON value, leaves out below s.
// A property with a default is not reported: defaulting fills it in.
//
// Use it on a request body decoded into a Go type: the Go value cannot
// tell a field that was sent as its zero value from one that was left
// out, since both read as the zero value. [RequiredCheck] says when the
// body has to be looked at.
func (s *Schema) MissingRequired(p status.Path, x any) status.FieldErrors {
	var errs status.FieldErrors
	s.missingRequired(p, x, &errs)
	return errs
}

func (s *Schema) missingRequired(p status.Path, x any, errs *status.FieldErrors) {
	if s == nil {
		return
	}
	switch t := x.(type) {
	case []any:
		for i, e := range t {
			s.Items.missingRequired(p.Index(i), e, errs)
		}
	case map[string]any:
		for _, k := range s.Required {
			if _, ok := t[k]; !ok && (s.Properties[k] == nil || s.Properties[k].Default == nil) {
				*errs = append(*errs, status.Required(p.Child(k), ""))
			}
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps := s.Properties[k]
			if ps == nil {
				ps = s.AdditionalProperties
			}
			ps.missingRequired(p.Child(k), t[k], errs)
		}
	}
}

// RequiredCheck tells, from a Go value, whether the JSON it was decoded
// from may have left out a required property of its schema: that is only
// possible when the field of a required property holds its zero value.
// Built once per type, it walks only the paths that lead to required
// properties, so that bodies whose required fields are all set skip
// [Schema.MissingRequired].
type RequiredCheck struct {
	root *rnode // nil: nothing is required
}

// rnode is the plan for a value with required properties at or below it.
type rnode struct {
	kind   reflect.Kind // Struct, Slice, Array or Map (pointers are followed)
	elem   *rnode
	fields []rfield
}

type rfield struct {
	index    []int // into the struct, through embedded structs
	required bool
	node     *rnode
}

// NewRequiredCheck builds the RequiredCheck of Go type t for schema s. A
// type whose JSON form the check cannot follow (one with its own
// marshalling or an interface on a path to a required property) makes
// every value a candidate.
func NewRequiredCheck(s *Schema, t reflect.Type) *RequiredCheck {
	return &RequiredCheck{root: planRequired(s, t, 0)}
}

// MayMiss reports whether v, a value of the check's type, holds the zero
// value in a field of a required property, so that the JSON it was
// decoded from may have left the property out.
func (c *RequiredCheck) MayMiss(v reflect.Value) bool {
	return c != nil && c.root != nil && c.root.mayMiss(v)
}

// always marks a value whose JSON form the plan cannot follow.
var always = &rnode{}

const maxRequiredDepth = 64

func planRequired(s *Schema, t reflect.Type, depth int) *rnode {
	if s == nil || !requiredBelow(s, depth) {
		return nil
	}
	if marshalsItself(t) || depth > maxRequiredDepth {
		return always
	}
	t = deref(t)
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if n := planRequired(s.Items, t.Elem(), depth+1); n != nil {
			return &rnode{kind: t.Kind(), elem: n}
		}
		return nil
	case reflect.Map:
		if n := planRequired(s.AdditionalProperties, t.Elem(), depth+1); n != nil {
			return &rnode{kind: reflect.Map, elem: n}
		}
		return nil
	case reflect.Struct:
		n := &rnode{kind: reflect.Struct}
		for _, sf := range reflect.VisibleFields(t) {
			name, ok := visibleJSONName(sf)
			ok = ok && flattened(t, sf.Index)
			ps := s.Properties[name]
			if !ok || ps == nil {
				continue
			}
			f := rfield{index: sf.Index, required: s.hasRequired(name) && ps.Default == nil, node: planRequired(ps, sf.Type, depth+1)}
			if f.required || f.node != nil {
				n.fields = append(n.fields, f)
			}
		}
		return n
	}
	return always
}

// visibleJSONName is the JSON name of a field reflect.VisibleFields
// lists, and false for fields encoding/json does not encode by name
// (unexported, skipped, or embedded structs it flattens).
func visibleJSONName(sf reflect.StructField) (string, bool) {
	tag, _ := sf.Tag.Lookup("json")
	if tag == "-" {
		return "", false
	}
	name, _, _ := strings.Cut(tag, ",")
	if sf.Anonymous && name == "" && deref(sf.Type).Kind() == reflect.Struct {
		return "", false
	}
	if !sf.IsExported() {
		return "", false
	}
	return cmpOr(name, sf.Name), true
}

// flattened reports whether encoding/json encodes the field at index of
// struct t among t's own properties: every embedded struct on the way has
// no JSON name of its own.
func flattened(t reflect.Type, index []int) bool {
	for i := 1; i < len(index); i++ {
		if _, ok := visibleJSONName(t.FieldByIndex(index[:i])); ok {
			return false
		}
	}
	return true
}

func requiredBelow(s *Schema, depth int) bool {
	if s == nil || depth > maxRequiredDepth {
		return false
	}
	if len(s.Required) > 0 {
		return true
	}
	for _, p := range s.Properties {
		if requiredBelow(p, depth+1) {
			return true
		}
	}
	return requiredBelow(s.Items, depth+1) || requiredBelow(s.AdditionalProperties, depth+1)
}

func (n *rnode) mayMiss(v reflect.Value) bool {
	if n == always {
		return true
	}
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return false // absent or null: nothing below it is required
		}
		v = v.Elem()
	}
	switch n.kind {
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if n.elem.mayMiss(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if n.elem.mayMiss(it.Value()) {
				return true
			}
		}
	case reflect.Struct:
		for _, f := range n.fields {
			fv, err := v.FieldByIndexErr(f.index)
			if err != nil {
				continue // through a nil embedded pointer: not encoded
			}
			if f.required && fv.IsZero() {
				return true
			}
			if f.node != nil && f.node.mayMiss(fv) {
				return true
			}
		}
	}
	return false
}
