package status

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/kapi-dev/kapi/meta"
)

// Path is a field path such as spec.ports[0].name or metadata.labels[app].
// The zero Path is the root.
type Path struct {
	s string
}

// NewPath returns the path of a top-level field and its children.
func NewPath(name string, more ...string) Path {
	p := Path{s: name}
	for _, m := range more {
		p = p.Child(m)
	}
	return p
}

// Child returns the path of a named field below p.
func (p Path) Child(name string) Path {
	if p.s == "" {
		return Path{s: name}
	}
	return Path{s: p.s + "." + name}
}

// Index returns the path of a list element below p.
func (p Path) Index(i int) Path { return Path{s: p.s + "[" + strconv.Itoa(i) + "]"} }

// Key returns the path of a map entry below p.
func (p Path) Key(k string) Path { return Path{s: p.s + "[" + k + "]"} }

// String renders the path.
func (p Path) String() string { return p.s }

// FieldError is one problem with one field, as reported in an Invalid
// Status's causes.
type FieldError struct {
	Type     meta.CauseType
	Field    string
	BadValue any
	Detail   string
	// omitValue leaves the value out of the message, as Kubernetes does
	// for an unknown count in TooMany. Required, Forbidden and TooLong
	// never show the value.
	omitValue bool
}

// Error renders "field: body".
func (e *FieldError) Error() string { return e.Field + ": " + e.ErrorBody() }

// ErrorBody renders the message without the field, as it appears in a
// StatusCause.
func (e *FieldError) ErrorBody() string {
	var s string
	switch e.Type {
	case meta.CauseTypeFieldValueRequired:
		s = "Required value"
	case meta.CauseTypeFieldValueForbidden:
		s = "Forbidden"
	case meta.CauseTypeFieldValueNotFound:
		s = "Not found"
	case meta.CauseTypeFieldValueDuplicate:
		s = "Duplicate value"
	case meta.CauseTypeFieldValueNotSupported:
		s = "Unsupported value"
	case meta.CauseTypeFieldValueTooLong:
		s = "Too long"
	case meta.CauseTypeFieldValueTooMany:
		s = "Too many"
	case meta.CauseTypeTypeInvalid:
		s = "Invalid value"
	default:
		s = "Invalid value"
	}
	switch e.Type {
	case meta.CauseTypeFieldValueRequired, meta.CauseTypeFieldValueForbidden, meta.CauseTypeFieldValueTooLong:
		// the value is never shown
	default:
		// As apimachinery's field.Error, a nil value renders as null.
		if !e.omitValue {
			s += ": " + renderValue(e.BadValue)
		}
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func renderValue(v any) string {
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case int, int32, int64, uint32, uint64, float32, float64, bool:
		return fmt.Sprint(t)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprintf("%#v", v)
		}
		return string(b)
	}
}

// FieldErrors is a list of field problems.
type FieldErrors []*FieldError

// Error joins the messages.
func (l FieldErrors) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, ", ")
}

// Required reports a missing value.
func Required(p Path, detail string) *FieldError {
	return &FieldError{Type: meta.CauseTypeFieldValueRequired, Field: p.s, Detail: detail, omitValue: true}
}

// InvalidValue reports a malformed value.
func InvalidValue(p Path, value any, detail string) *FieldError {
	return &FieldError{Type: meta.CauseTypeFieldValueInvalid, Field: p.s, BadValue: value, Detail: detail}
}

// TypeInvalid reports a value of the wrong type.
func TypeInvalid(p Path, value any, detail string) *FieldError {
	return &FieldError{Type: meta.CauseTypeTypeInvalid, Field: p.s, BadValue: value, Detail: detail}
}

// NotSupported reports a value outside an enumeration; the valid values,
// when given, are listed in the detail.
func NotSupported(p Path, value any, valid []string) *FieldError {
	detail := ""
	if len(valid) > 0 {
		quoted := make([]string, len(valid))
		for i, v := range valid {
			quoted[i] = strconv.Quote(v)
		}
		detail = "supported values: " + strings.Join(quoted, ", ")
	}
	return &FieldError{Type: meta.CauseTypeFieldValueNotSupported, Field: p.s, BadValue: value, Detail: detail}
}

// ForbiddenField reports a value that may not be set.
func ForbiddenField(p Path, detail string) *FieldError {
	return &FieldError{Type: meta.CauseTypeFieldValueForbidden, Field: p.s, Detail: detail, omitValue: true}
}

// Duplicate reports a repeated value.
func Duplicate(p Path, value any) *FieldError {
	return &FieldError{Type: meta.CauseTypeFieldValueDuplicate, Field: p.s, BadValue: value}
}

// TooLong reports a value longer than allowed; the value is not shown. A
// negative max means the limit is not stated.
func TooLong(p Path, value any, max int) *FieldError {
	detail := "value is too long"
	if max >= 0 {
		detail = fmt.Sprintf("may not be more than %d %s", max, plural(max, "byte", "bytes"))
	}
	return &FieldError{Type: meta.CauseTypeFieldValueTooLong, Field: p.s, BadValue: value, omitValue: true, Detail: detail}
}

// TooMany reports a list with too many items. A negative actual leaves the
// count out; a negative max leaves the limit out.
func TooMany(p Path, actual, max int) *FieldError {
	detail := "has too many items"
	if max >= 0 {
		detail = fmt.Sprintf("must have at most %d %s", max, plural(max, "item", "items"))
	}
	return &FieldError{Type: meta.CauseTypeFieldValueTooMany, Field: p.s, BadValue: actual, omitValue: actual < 0, Detail: detail}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// InvalidOmitValue reports an invalid object or list without printing
// it, as kube-apiserver reports a failed validation rule on one.
func InvalidOmitValue(p Path, detail string) *FieldError {
	return &FieldError{Type: meta.CauseTypeFieldValueInvalid, Field: p.s, Detail: detail, omitValue: true}
}
