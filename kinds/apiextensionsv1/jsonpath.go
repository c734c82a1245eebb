package apiextensionsv1

import (
	"fmt"
	"strconv"
	"strings"
)

// A path is the JSONPath subset of printer columns and selectable
// fields: .a.b, ..a (a at any depth), [n], [*] and [?(@.key=="value")]
// steps.
type path []step

type step struct {
	field     string // a field name, or ""
	recursive bool   // ..field: the field of the value or of anything below it
	index     int    // an index, when field is "" and !all and filter == nil
	all       bool   // [*]
	filter    *filter
}

type filter struct {
	key   []string // @.a.b
	value string
}

// parsePath parses a JSONPath as kube's printer columns write it, with
// or without the {} around it.
func parsePath(s string) (path, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	if !strings.HasPrefix(s, ".") {
		return nil, fmt.Errorf("must start with a dot")
	}
	var out path
	for s != "" {
		switch s[0] {
		case '.':
			s = s[1:]
			recursive := strings.HasPrefix(s, ".")
			if recursive {
				s = s[1:]
			}
			n := strings.IndexAny(s, ".[")
			if n < 0 {
				n = len(s)
			}
			if n == 0 {
				return nil, fmt.Errorf("empty field name")
			}
			out = append(out, step{field: s[:n], recursive: recursive})
			s = s[n:]
		case '[':
			end := strings.Index(s, "]")
			if end < 0 {
				return nil, fmt.Errorf("unterminated [")
			}
			st, err := parseBracket(s[1:end])
			if err != nil {
				return nil, err
			}
			out = append(out, st)
			s = s[end+1:]
		default:
			return nil, fmt.Errorf("unexpected %q", s[0])
		}
	}
	return out, nil
}

func parseBracket(in string) (step, error) {
	if in == "*" {
		return step{all: true}, nil
	}
	if n, err := strconv.Atoi(in); err == nil && n >= 0 {
		return step{index: n}, nil
	}
	if !strings.HasPrefix(in, "?(@.") || !strings.HasSuffix(in, ")") {
		return step{}, fmt.Errorf("unsupported step [%s]", in)
	}
	body := in[len("?(@.") : len(in)-1]
	key, value, ok := strings.Cut(body, "==")
	if !ok {
		return step{}, fmt.Errorf("unsupported filter [%s]", in)
	}
	value = strings.TrimSpace(value)
	if len(value) < 2 || (value[0] != '"' && value[0] != '\'') || value[len(value)-1] != value[0] {
		return step{}, fmt.Errorf("filter [%s] must compare with a quoted string", in)
	}
	return step{filter: &filter{key: strings.Split(strings.TrimSpace(key), "."), value: value[1 : len(value)-1]}}, nil
}

// simple reports whether the path is only field names.
func (p path) simple() bool {
	for _, s := range p {
		if s.field == "" {
			return false
		}
	}
	return true
}

// first returns the first value the path selects from v.
func (p path) first(v any) (any, bool) {
	cur := []any{v}
	for _, st := range p {
		var next []any
		for _, c := range cur {
			next = st.apply(c, next)
		}
		if len(next) == 0 {
			return nil, false
		}
		cur = next
	}
	return cur[0], true
}

func (st step) apply(v any, out []any) []any {
	switch {
	case st.recursive:
		for _, x := range descendants(v, nil) {
			out = step{field: st.field}.apply(x, out)
		}
	case st.field != "":
		if m, ok := v.(map[string]any); ok {
			if x, ok := m[st.field]; ok {
				out = append(out, x)
			}
		}
	case st.all:
		switch t := v.(type) {
		case []any:
			out = append(out, t...)
		case map[string]any:
			for _, k := range sortedKeys(t) {
				out = append(out, t[k])
			}
		}
	case st.filter != nil:
		items, _ := v.([]any)
		for _, it := range items {
			if x, ok := (path(fieldSteps(st.filter.key))).first(it); ok && fmt.Sprint(x) == st.filter.value {
				out = append(out, it)
			}
		}
	default:
		if items, ok := v.([]any); ok && st.index < len(items) {
			out = append(out, items[st.index])
		}
	}
	return out
}

func fieldSteps(names []string) []step {
	out := make([]step, len(names))
	for i, n := range names {
		out[i] = step{field: n}
	}
	return out
}

// descendants appends v and every value below it, each before what is
// below it, a map's values by key, as kube's recursive descent visits
// them.
func descendants(v any, out []any) []any {
	out = append(out, v)
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(t) {
			out = descendants(t[k], out)
		}
	case []any:
		for _, x := range t {
			out = descendants(x, out)
		}
	}
	return out
}

// balanced reports whether a path's brackets and quotes close, as
// kube's JSONPath parser needs them to: printer columns from the first
// path it cannot parse on are left out of its tables.
func balanced(s string) bool {
	depth, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[':
			depth++
		case c == ']':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0 && quote == 0
}
