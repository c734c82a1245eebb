package schema

import (
	"errors"
	"fmt"
	"reflect"
)

// CheckZeroValues reports the first Go zero-value trap of type t under
// schema s, as an error that names the Go field and the fix. A trap is a
// field whose zero value its JSON form leaves out (a non-pointer number or
// boolean tagged omitempty or omitzero) where leaving it out changes the
// outcome of a write:
//
//   - a non-zero default: an explicit 0 or false is left out, and the
//     default replaces it (an applied replicas: 0 becomes 1);
//   - a minimum or maximum that rejects 0: a write of 0 removes the field
//     instead of failing validation.
//
// Making the field a pointer keeps the zero. Strings are not traps: by
// Kubernetes convention the empty string means unset, and a default such
// as protocol TCP is meant to replace it. Servers call CheckZeroValues
// when a kind is registered.
func CheckZeroValues(s *Schema, t reflect.Type) error {
	if t == nil {
		return errors.New("schema: nil type")
	}
	return (&builder{visiting: make(map[reflect.Type]bool)}).zeroTraps(s, t, typeName(t))
}

// zeroTraps walks t and s together; the schema is a finite tree, so the
// walk ends on recursive types too.
func (b *builder) zeroTraps(s *Schema, t reflect.Type, where string) error {
	if s == nil || marshalsItself(t) {
		return nil
	}
	t = deref(t)
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return b.zeroTraps(s.Items, t.Elem(), where+"[]")
	case reflect.Map:
		return b.zeroTraps(s.AdditionalProperties, t.Elem(), where+"[]")
	case reflect.Struct:
	default:
		return nil
	}
	var fields []jsonField
	if err := b.collect(t, where, 0, &fields); err != nil {
		return err
	}
	fields, err := resolveFields(fields)
	if err != nil {
		return err
	}
	for _, f := range fields {
		fs := s.Properties[f.name]
		if fs == nil {
			continue
		}
		if err := zeroTrap(f, fs); err != nil {
			return err
		}
		if err := b.zeroTraps(fs, f.field.Type, f.where); err != nil {
			return err
		}
	}
	return nil
}

// zeroTrap refuses a field whose zero value its JSON form drops (a
// non-pointer number or boolean tagged omitempty or omitzero) when
// dropping it changes the outcome: a non-zero default turns an explicit
// zero into the default, and a bound the zero value violates lets a write
// of zero remove the field instead of failing validation. A pointer keeps
// the zero. Strings are left alone: by Kubernetes convention the empty
// string means unset, and a default such as protocol TCP is meant to
// replace it.
func zeroTrap(f jsonField, s *Schema) error {
	t := f.field.Type
	if !f.omit || f.asString || !isScalarKind(t.Kind()) || t.Kind() == reflect.String {
		return nil
	}
	zero := zeroJSON(t.Kind())
	fix := fmt.Sprintf("make it a pointer (*%s) so that an explicit %v is kept", t, zero)
	if s.Default != nil && !jsonEqual(s.Default, zero) {
		return fmt.Errorf("schema: %s: the field is tagged omitempty, so its zero value %v is left out of JSON "+
			"and the default %v replaces it: %s", f.where, zero, s.Default, fix)
	}
	if n, ok := zero.(int64); ok {
		if msg := boundProblem(s, float64(n)); msg != "" {
			return fmt.Errorf("schema: %s: %s, but the field is tagged omitempty, so a write of 0 removes the field "+
				"instead of failing validation: %s", f.where, msg, fix)
		}
	}
	return nil
}

// boundProblem says which numeric bound of s rejects x, if any.
func boundProblem(s *Schema, x float64) string {
	switch {
	case s.Minimum != nil && (x < *s.Minimum || s.ExclusiveMinimum && x == *s.Minimum):
		return fmt.Sprintf("minimum %v rejects %v", *s.Minimum, x)
	case s.Maximum != nil && (x > *s.Maximum || s.ExclusiveMaximum && x == *s.Maximum):
		return fmt.Sprintf("maximum %v rejects %v", *s.Maximum, x)
	}
	return ""
}

func isScalarKind(k reflect.Kind) bool {
	_, _, ok := scalarType(k)
	return ok
}

// zeroJSON is the decoded JSON form of the zero value of a scalar kind;
// numbers are int64 0, which jsonEqual finds equal to float64 0.
func zeroJSON(k reflect.Kind) any {
	if k == reflect.Bool {
		return false
	}
	return int64(0)
}
