package schema

import (
	"fmt"
	"strconv"

	"github.com/kapi-dev/kapi/status"
)

// Enforcing allOf, anyOf, oneOf and not as kube-apiserver does for custom
// resources (its OpenAPI validator): a junctor that fails is one error
// without a field, naming the value's path in its message, for example
//
//	<nil>: Invalid value: "": "spec.mode" must validate one and only one schema (oneOf). Found none valid
//
// with the errors of the alternative that came closest (anyOf, and oneOf
// when none is valid) after it, or the errors of every schema of an
// allOf before it.

// junctors checks x, at p, against the value validations of s.
func (v *Validator) junctors(s *Schema, p *vpath, x any, errs *status.FieldErrors) {
	path := strconv.Quote(p.path().String())
	if len(s.AnyOf) > 0 {
		if valid, closest := v.alternatives(s.AnyOf, p, x, true); valid == 0 {
			*errs = append(*errs, junctorError(path+" must validate at least one schema (anyOf)"))
			*errs = append(*errs, closest...)
		}
	}
	if len(s.OneOf) > 0 {
		switch valid, closest := v.alternatives(s.OneOf, p, x, false); valid {
		case 0:
			*errs = append(*errs, junctorError(path+" must validate one and only one schema (oneOf). Found none valid"))
			*errs = append(*errs, closest...)
		case 1:
		default:
			*errs = append(*errs, junctorError(fmt.Sprintf("%s must validate one and only one schema (oneOf). Found %d valid alternatives", path, valid)))
		}
	}
	if len(s.AllOf) > 0 {
		valid := 0
		for _, sub := range s.AllOf {
			e := v.try(sub, p, x)
			if len(e) == 0 {
				valid++
			}
			*errs = append(*errs, e...)
		}
		if valid < len(s.AllOf) {
			more := ""
			if valid == 0 {
				more = ". None validated"
			}
			*errs = append(*errs, junctorError(path+" must validate all the schemas (allOf)"+more))
		}
	}
	if s.Not != nil && len(v.try(s.Not, p, x)) == 0 {
		*errs = append(*errs, junctorError(path+" must not validate the schema (not)"))
	}
}

// alternatives validates x against each schema of list, stopping at the
// first valid one when first is set. It returns how many were valid and,
// when none was, the errors of the one that applied the most checks (the
// first of those that tie), as kube-apiserver picks the errors to show.
func (v *Validator) alternatives(list []*Schema, p *vpath, x any, first bool) (int, status.FieldErrors) {
	valid, most := 0, -1
	var closest status.FieldErrors
	for _, sub := range list {
		e := v.try(sub, p, x)
		if len(e) == 0 {
			valid++
			if first {
				break
			}
			continue
		}
		if n := checks(sub, x); valid == 0 && n > most {
			closest, most = e, n
		}
	}
	if valid > 0 {
		closest = nil
	}
	return valid, closest
}

// try validates x against s and returns the errors.
func (v *Validator) try(s *Schema, p *vpath, x any) status.FieldErrors {
	var errs status.FieldErrors
	v.node(s, p, x, &errs)
	return errs
}

// junctorError is a junctor's failure: kube-apiserver reports it with
// no field (which it writes "<nil>") and an empty value, the path being
// in the message.
func junctorError(msg string) *status.FieldError {
	return status.InvalidValue(noField, "", msg)
}

// noField is the field of errors kube-apiserver's validator reports
// without one.
var noField = status.NewPath("<nil>")

// checks counts the checks validating x against s applies: a few per
// node of x that s describes (its type, value validations, enum, and the
// checks of its kind of value), so that the alternative reaching deeper
// into the value counts more.
func checks(s *Schema, x any) int {
	if s == nil {
		return 0
	}
	n := 4 + formatChecks(s, x)
	switch t := x.(type) {
	case nil, bool:
		n--
	case map[string]any:
		for k, e := range t {
			sub := s.Properties[k]
			if sub == nil {
				sub = s.AdditionalProperties
			}
			n += checks(sub, e)
		}
	case []any:
		for _, e := range t {
			n += checks(s.Items, e)
		}
	}
	return n
}
