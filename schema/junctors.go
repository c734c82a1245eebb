package schema

import (
	"fmt"
	"strconv"
)

// Value validations (allOf, anyOf, oneOf, not) in an OpenAPI document,
// with the restrictions kube-apiserver puts on them in a structural
// schema: they may only constrain values, never say what a value is, and
// everything they name must be in the structural part of the schema too.

// kwJunctor parses allOf, anyOf or oneOf: a non-empty list of value
// validations. structural is set for the junctors of a node of the
// structural part, where kube's int-or-string forms are allowed: an
// anyOf of type integer and type string, directly or first in an allOf.
func kwJunctor(name string, structural bool) keyword {
	return func(s *Schema, v any, where string) error {
		if structural && name == "anyOf" && isIntOrStringPattern(v) {
			s.AnyOf = []*Schema{{Type: "integer"}, {Type: "string"}}
			return nil
		}
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return fmt.Errorf("schema: %s: must be a non-empty array of schemas", where)
		}
		out := make([]*Schema, len(list))
		for i, x := range list {
			m, ok := x.(map[string]any)
			if !ok {
				return fmt.Errorf("schema: %s[%d]: must be a schema object", where, i)
			}
			n, err := parseNested(m, where+"["+strconv.Itoa(i)+"]", structural && name == "allOf" && i == 0)
			if err != nil {
				return err
			}
			out[i] = n
		}
		switch name {
		case "allOf":
			s.AllOf = out
		case "anyOf":
			s.AnyOf = out
		case "oneOf":
			s.OneOf = out
		}
		return nil
	}
}

func kwNot(s *Schema, v any, where string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("schema: %s: must be a schema object", where)
	}
	n, err := parseNested(m, where, false)
	s.Not = n
	return err
}

// isIntOrStringPattern reports whether v, the value of an anyOf, is
// kube's int-or-string form: [{type: integer}, {type: string}].
func isIntOrStringPattern(v any) bool {
	list, ok := v.([]any)
	if !ok || len(list) != 2 {
		return false
	}
	a, _ := list[0].(map[string]any)
	b, _ := list[1].(map[string]any)
	return len(a) == 1 && len(b) == 1 && a["type"] == "integer" && b["type"] == "string"
}

// nestedForbidden are the keywords a value validation may not use, with
// kube-apiserver's messages, in its order.
var nestedForbidden = []struct{ key, msg string }{
	{"type", "must be empty to be structural"},
	{"additionalProperties", "must be undefined to be structural"},
	{"default", "must be undefined to be structural"},
	{"title", "must be empty to be structural"},
	{"description", "must be empty to be structural"},
	{"nullable", "must be false to be structural"},
	{"x-kubernetes-preserve-unknown-fields", "must be false to be structural"},
	{"x-kubernetes-embedded-resource", "must be false to be structural"},
	{"x-kubernetes-int-or-string", "must be false to be structural"},
	{"x-kubernetes-list-map-keys", "must be empty to be structural"},
	{"x-kubernetes-list-type", "must be undefined to be structural"},
	{"x-kubernetes-map-type", "must be undefined to be structural"},
	{"x-kubernetes-validations", "must be empty to be structural"},
}

// isSet reports whether a keyword's value says something: not null,
// false, "" or an empty list.
func isSet(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case []any:
		return len(t) > 0
	}
	return true
}

// parseNested parses a value validation: the value keywords of a schema,
// properties and items (value validations themselves) and junctors.
// intOrStringAnyOf lets its anyOf be kube's int-or-string form (the first
// item of an allOf).
func parseNested(m map[string]any, where string, intOrStringAnyOf bool) (*Schema, error) {
	for _, f := range nestedForbidden {
		if isSet(m[f.key]) {
			return nil, fmt.Errorf("schema: %s.%s: Forbidden: %s", where, f.key, f.msg)
		}
	}
	s := &Schema{}
	for _, k := range sortedKeys(m) {
		v := m[k]
		var err error
		switch k {
		case "type", "additionalProperties", "default", "title", "description", "nullable",
			"x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource", "x-kubernetes-int-or-string",
			"x-kubernetes-list-map-keys", "x-kubernetes-list-type", "x-kubernetes-map-type", "x-kubernetes-validations":
			continue // unset, as checked above
		case "properties":
			err = nestedProperties(s, v, where+".properties")
		case "items":
			sub, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("schema: %s.items: must be one schema (tuples are not structural)", where)
			}
			s.Items, err = parseNested(sub, where+".items", false)
		case "anyOf":
			if intOrStringAnyOf && isIntOrStringPattern(v) {
				s.AnyOf = []*Schema{{Type: "integer"}, {Type: "string"}}
				continue
			}
			err = kwJunctor(k, false)(s, v, where+"."+k)
		case "allOf", "oneOf":
			err = kwJunctor(k, false)(s, v, where+"."+k)
		case "not":
			err = kwNot(s, v, where+".not")
		default:
			if why := refusal(k); why != "" {
				return nil, fmt.Errorf("schema: %s.%s: %s", where, k, why)
			}
			kw := keywordFor(k)
			if kw == nil {
				return nil, fmt.Errorf("schema: %s: unknown keyword %q", where, k)
			}
			err = kw(s, v, where+"."+k)
		}
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

func nestedProperties(s *Schema, v any, where string) error {
	props, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("schema: %s: must be an object", where)
	}
	if _, ok := props["metadata"]; ok {
		return fmt.Errorf("schema: %s.metadata: Forbidden: must not be specified in a nested context", where)
	}
	s.Properties = make(map[string]*Schema, len(props))
	for _, name := range sortedKeys(props) {
		pm, ok := props[name].(map[string]any)
		if !ok {
			return fmt.Errorf("schema: %s.%s: must be a schema object", where, name)
		}
		p, err := parseNested(pm, where+"."+name, false)
		if err != nil {
			return err
		}
		s.Properties[name] = p
		s.PropertyOrder = append(s.PropertyOrder, name)
	}
	return nil
}

// checkComplete reports a property or items named in a value validation
// of s that the structural part of s does not specify, as kube-apiserver
// does: "because it is defined in" the value validation's path. Like
// kube-apiserver, FromOpenAPI checks the value validations of the root
// (and those nested in them), not those of deeper nodes.
func checkComplete(s *Schema, where string) error {
	for _, j := range junctorsOf(s, where) {
		if err := completeAgainst(j.s, s, where, j.where); err != nil {
			return err
		}
	}
	return nil
}

type junctor struct {
	s     *Schema
	where string
}

// junctorsOf lists the value validations directly under s.
func junctorsOf(s *Schema, where string) []junctor {
	var out []junctor
	if s.Not != nil {
		out = append(out, junctor{s.Not, where + ".not"})
	}
	for _, l := range []struct {
		name string
		list []*Schema
	}{{"allOf", s.AllOf}, {"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
		for i, n := range l.list {
			out = append(out, junctor{n, where + "." + l.name + "[" + strconv.Itoa(i) + "]"})
		}
	}
	return out
}

// completeAgainst checks the value validation v (at vWhere) against the
// structural node st (at sWhere).
func completeAgainst(v, st *Schema, sWhere, vWhere string) error {
	if st == nil {
		return fmt.Errorf("schema: %s: Required value: because it is defined in %s", sWhere, vWhere)
	}
	for _, j := range junctorsOf(v, vWhere) {
		if err := completeAgainst(j.s, st, sWhere, j.where); err != nil {
			return err
		}
	}
	if v.Items != nil {
		if err := completeAgainst(v.Items, st.Items, sWhere+".items", vWhere+".items"); err != nil {
			return err
		}
	}
	for _, name := range v.PropertyOrder {
		sp := st.Properties[name]
		if sp == nil {
			return fmt.Errorf("schema: %s.properties.%s: Required value: because it is defined in %s.properties.%s", sWhere, name, vWhere, name)
		}
		if err := completeAgainst(v.Properties[name], sp, sWhere+".properties."+name, vWhere+".properties."+name); err != nil {
			return err
		}
	}
	return nil
}

// hasJunctors reports whether s has value validations.
func (s *Schema) hasJunctors() bool {
	return len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 || s.Not != nil
}
