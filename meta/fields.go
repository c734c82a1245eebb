package meta

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// FieldSelector is a parsed field selector in the syntax kube-apiserver
// accepts in the fieldSelector query parameter, for example
// "metadata.name=web,status.phase!=Failed".
//
// Terms are ANDed. The zero FieldSelector, like the one parsed from an
// empty string, matches everything. A FieldSelector is immutable and safe
// for concurrent use.
type FieldSelector struct {
	terms []fieldTerm
}

// fieldTerm is field=value, or field!=value when notEqual is set.
type fieldTerm struct {
	field    string
	value    string // unescaped
	notEqual bool
}

// ParseFieldSelector parses s as Kubernetes'
// k8s.io/apimachinery/pkg/fields.ParseSelector does. s is a comma-separated
// list of terms field=value, field==value (the same) or field!=value.
// Nothing is trimmed: whitespace belongs to the field or value. In a value
// a backslash escapes a backslash, a comma or an equals sign (`\\`, `\,`,
// `\=`); any other escape, and an unescaped '=', is an error. A field name
// is taken literally up to the first operator; it is not checked against
// the fields a kind supports (see [FieldSelector.Fields]). Empty terms and
// terms with an empty field and value are ignored, as Kubernetes ignores
// them. Terms are kept in the sorted order of their source text.
func ParseFieldSelector(s string) (FieldSelector, error) {
	parts := splitFieldTerms(s)
	sort.Strings(parts)
	var terms []fieldTerm
	for _, part := range parts {
		if part == "" {
			continue
		}
		field, op, raw, ok := splitFieldTerm(part)
		if !ok {
			return FieldSelector{}, fmt.Errorf("invalid selector: '%s'; can't understand '%s'", s, part)
		}
		value, err := unescapeFieldValue(raw)
		if err != nil {
			return FieldSelector{}, err
		}
		if field == "" && value == "" {
			continue
		}
		terms = append(terms, fieldTerm{field: field, value: value, notEqual: op == "!="})
	}
	return FieldSelector{terms: terms}, nil
}

// Matches reports whether every term holds, looking each field up through
// get. A field get does not know (ok=false) does not match, whatever the
// operator. Matches itself does not allocate.
func (s FieldSelector) Matches(get func(field string) (value string, ok bool)) bool {
	for i := range s.terms {
		t := &s.terms[i]
		v, ok := get(t.field)
		if !ok || (v == t.value) == t.notEqual {
			return false
		}
	}
	return true
}

// Empty reports whether s has no terms and so matches everything.
func (s FieldSelector) Empty() bool { return len(s.terms) == 0 }

// String renders s as kube-apiserver does: field=value or field!=value
// (== is printed as =), values escaped, terms joined by commas. It parses
// back to an equivalent selector.
func (s FieldSelector) String() string {
	var b strings.Builder
	for i, t := range s.terms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(t.field)
		if t.notEqual {
			b.WriteString("!=")
		} else {
			b.WriteByte('=')
		}
		writeEscapedFieldValue(&b, t.value)
	}
	return b.String()
}

// Fields lists the field names the selector mentions, each once, in term
// order, so a server can reject unsupported fields with a 400 before
// matching. The slice is the caller's.
func (s FieldSelector) Fields() []string {
	out := make([]string, 0, len(s.terms))
	for _, t := range s.terms {
		if !slices.Contains(out, t.field) {
			out = append(out, t.field)
		}
	}
	return out
}

// RequiresExactMatch returns the value if the selector has field=value
// (or field==value) for field, which lets a server serve, say,
// metadata.name=foo with a get instead of a scan. With several such terms
// it returns the first.
func (s FieldSelector) RequiresExactMatch(field string) (string, bool) {
	for _, t := range s.terms {
		if t.field == field && !t.notEqual {
			return t.value, true
		}
	}
	return "", false
}

// splitFieldTerms splits s at commas not escaped by a backslash, keeping
// the escapes in the parts.
func splitFieldTerms(s string) []string {
	if s == "" {
		return nil
	}
	var parts []string
	start, escaped := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case escaped:
			escaped = false
		case s[i] == '\\':
			escaped = true
		case s[i] == ',':
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// splitFieldTerm splits term at the first operator: at each position it
// tries "!=", then "==", then "=". The field has no escapes.
func splitFieldTerm(term string) (field, op, value string, ok bool) {
	for i := 0; i < len(term); i++ {
		rest := term[i:]
		for _, op := range [...]string{"!=", "==", "="} {
			if strings.HasPrefix(rest, op) {
				return term[:i], op, rest[len(op):], true
			}
		}
	}
	return "", "", "", false
}

// unescapeFieldValue undoes the escapes of a field selector value, with
// kube-apiserver's error messages (which print an unescaped rune as its
// number).
func unescapeFieldValue(s string) (string, error) {
	if !strings.ContainsAny(s, `\,=`) {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	escaped := false
	for _, c := range s {
		switch {
		case escaped && (c == '\\' || c == ',' || c == '='):
			b.WriteRune(c)
			escaped = false
		case escaped:
			return "", fmt.Errorf("invalid field selector: invalid escape sequence: %s", `\`+string(c))
		case c == '\\':
			escaped = true
		case c == ',' || c == '=':
			return "", fmt.Errorf("invalid field selector: unescaped character in value: %v", c)
		default:
			b.WriteRune(c)
		}
	}
	if escaped {
		return "", fmt.Errorf("invalid field selector: invalid escape sequence: %s", `\`)
	}
	return b.String(), nil
}

// writeEscapedFieldValue writes v with \, , and = escaped.
func writeEscapedFieldValue(b *strings.Builder, v string) {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '\\' || c == ',' || c == '=' {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
}
