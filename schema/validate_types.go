package schema

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kapi-dev/kapi/status"
)

// Type and number checks worded as kube-apiserver's validator words them
// for custom resources. It looks at a schema's format too: a value of
// another type is "of type int32" or "of type date-time" there, and a
// number must fit the format's range ("Checked value must be of type
// integer with format int32 in spec.replicas", an error without a
// field). Only the formats kube-apiserver keeps count: int32 and int64
// for integers, float and double for numbers, its named string formats.

// typeOK checks x's JSON type; false means x is not of the node's type.
func (v *Validator) typeOK(s *Schema, p *vpath, x any, errs *status.FieldErrors) bool {
	types := schemaTypes(s)
	if x == nil {
		if len(types) == 0 || s.Nullable {
			return true
		}
		*errs = append(*errs, status.TypeInvalid(p.path(), "null",
			fmt.Sprintf("%s in body must be of type %s: %q", name(p.path()), strings.Join(types, ","), "null")))
		return false
	}
	format := checkedFormat(s)
	if len(types) == 0 && format == "" {
		return true // a format alone (a junctor's) still checks the type
	}
	got, gotFormat := dataType(x)
	numeric := slices.Contains(types, "integer") || slices.Contains(types, "number")
	floatInt := got == "number" && isJSONInteger(x.(float64)) && slices.Contains(types, "integer")
	intFloat := got == "integer" && slices.Contains(types, "number")
	matches := slices.Contains(types, got) || floatInt || intFloat
	stringOrList := got == "string" || got == "array"
	switch {
	case !stringOrList && format != "" && !matches && gotFormat != format:
		*errs = append(*errs, status.TypeInvalid(p.path(), gotFormat,
			fmt.Sprintf("%s in body must be of type %s: %q", name(p.path()), format, gotFormat)))
		return false
	case !numeric && format != "" && stringOrList:
		return true // as kube: a string format does not check lists
	case !matches:
		*errs = append(*errs, status.TypeInvalid(p.path(), got,
			fmt.Sprintf("%s in body must be of type %s: %q", name(p.path()), strings.Join(types, ","), got)))
		return false
	}
	return true
}

// schemaTypes are the types a node admits: an int-or-string node's two.
func schemaTypes(s *Schema) []string {
	switch {
	case s.XIntOrString:
		return []string{"integer", "string"}
	case s.Type == "":
		return nil
	}
	return []string{s.Type}
}

// dataType is the JSON type of a decoded value and the format
// kube-apiserver's validator sees in it (int64 and float64 for numbers).
func dataType(x any) (string, string) {
	switch x.(type) {
	case int64:
		return "integer", "int64"
	case float64:
		return "number", "float64"
	}
	return jsonType(x), ""
}

// isJSONInteger reports whether f is a whole number JSON can hold
// exactly, or within a relative 1e-9 of one, as kube-apiserver allows.
func isJSONInteger(f float64) bool {
	const maxJSON = 1<<53 - 1
	if math.IsNaN(f) || math.IsInf(f, 0) || f < -maxJSON || f > maxJSON {
		return false
	}
	r := math.Round(f)
	if f == r {
		return true
	}
	if r == 0 {
		return false
	}
	return math.Abs(f-r) < 1e-9*math.Abs(r)
}

// checkedFormat is the format of s kube-apiserver's validator keeps;
// it drops the others.
func checkedFormat(s *Schema) string {
	f := s.Format
	switch {
	case f == "":
	case s.XIntOrString || s.Type == "" || s.Type == "string":
		if stringFormat(strings.ReplaceAll(f, "-", "")) != nil {
			return f
		}
	case s.Type == "integer" && (f == "int32" || f == "int64"),
		s.Type == "number" && (f == "float" || f == "double"):
		return f
	}
	return ""
}

// numericFormat is the type and format a number is checked to fit: those
// of an integer or number node, none for others.
func numericFormat(s *Schema) (string, string) {
	if s.XIntOrString || (s.Type != "integer" && s.Type != "number") {
		return "", ""
	}
	return s.Type, checkedFormat(s)
}

// rangeProblem says how the number v does not fit the type and format
// typ and format (what names v: "Checked" for a value, "Maximum
// boundary" for a schema's bound; at names the value's path), or "".
func rangeProblem(v any, typ, format, what, at string) string {
	var rep string
	switch n := v.(type) {
	case int64:
		rep = strconv.FormatInt(n, 10)
	case float64:
		rep = strconv.FormatFloat(n, 'f', -1, 64)
	default:
		return ""
	}
	var err error
	switch {
	case typ == "integer" && format == "int32":
		_, err = strconv.ParseInt(rep, 10, 32)
	case typ == "integer":
		_, err = strconv.ParseInt(rep, 10, 64)
	case format == "float":
		_, err = strconv.ParseFloat(rep, 32)
	}
	switch {
	case err == nil:
		return ""
	case format != "":
		return fmt.Sprintf("%s value must be of type %s with format %s in %s", what, typ, format, at)
	}
	return fmt.Sprintf("%s value must be of type %s (default format) in %s", what, typ, at)
}
