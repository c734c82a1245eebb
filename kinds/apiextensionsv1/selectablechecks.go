package apiextensionsv1

import (
	"errors"
	"strings"

	kjson "sigs.k8s.io/json"

	"github.com/kapi-dev/kapi/status"
)

// maxSelectableFields is how many distinct selectable fields a version
// may have, as kube-apiserver allows.
const maxSelectableFields = 8

// selectableFieldErrors checks selectable fields (at p) against the
// schema they select from (raw, the version's or the shared one), as
// kube-apiserver does: each must name, with dots only, a property the
// schema declares, outside metadata, of type string, integer or boolean,
// once; no more than eight.
func selectableFieldErrors(fields []SelectableField, raw JSONSchemaProps, p status.Path) status.FieldErrors {
	root := &schemaProps{}
	if kjson.UnmarshalCaseSensitivePreserveInts(raw, root) != nil {
		root = nil
	}
	var errs status.FieldErrors
	seen := map[string]bool{}
	for i, f := range fields {
		fp := p.Index(i).Child("jsonPath")
		if f.JSONPath == "" {
			errs = append(errs, status.Required(fp, ""))
			continue
		}
		steps, found, err := selectFieldPath(f.JSONPath, root)
		if err != nil {
			errs = append(errs, status.InvalidValue(fp, f.JSONPath, "is an invalid path: "+err.Error()))
			continue
		}
		if len(steps) > 0 && steps[0] == "metadata" {
			errs = append(errs, status.InvalidValue(fp, f.JSONPath, "must not point to fields in metadata"))
		}
		if found == nil || (found.Type != "string" && found.Type != "boolean" && found.Type != "integer") {
			errs = append(errs, status.InvalidValue(fp, f.JSONPath, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."))
		}
		key := strings.Join(steps, "\x00")
		if seen[key] {
			errs = append(errs, status.Duplicate(fp, f.JSONPath))
		}
		seen[key] = true
	}
	if len(seen) > maxSelectableFields {
		errs = append(errs, status.TooMany(p, len(seen), maxSelectableFields))
	}
	return errs
}

var errNoField = errors.New("does not refer to a valid field")

// selectFieldPath follows a selectable field's path (.a.b, no brackets)
// through the schema as kube-apiserver's field path check does, with its
// messages: it returns the names followed (a map key as its key) and the
// schema found.
func selectFieldPath(path string, s *schemaProps) ([]string, *schemaProps, error) {
	toks := fieldPathTokens(path)
	var steps []string
	for i := 0; i < len(toks); i++ {
		switch toks[i] {
		case "[":
			return nil, nil, errors.New("array notation is not allowed")
		case ".":
			if i+1 == len(toks) {
				return nil, nil, errors.New("unexpected end of JSON path")
			}
			i++
			next, err := fieldStep(s, toks[i])
			if err != nil {
				return nil, nil, err
			}
			steps, s = append(steps, toks[i]), next
		default:
			return nil, nil, errors.New("expected [ or . but got: " + toks[i])
		}
	}
	return steps, s, nil
}

// fieldStep goes from s to its property name, or to its map values when
// it has no properties but additionalProperties.
func fieldStep(s *schemaProps, name string) (*schemaProps, error) {
	switch {
	case s == nil:
		return nil, errNoField
	case len(s.Properties) > 0:
		p, ok := s.Properties[name]
		if !ok {
			return nil, errNoField
		}
		return &p, nil
	case s.AdditionalProperties != nil:
		return s.AdditionalProperties.Schema, nil
	}
	return nil, errNoField
}

// fieldPathTokens splits a path as kube's scanner does: '.', '[' and ']'
// alone, a single-quoted string (up to its closing quote) whole, and
// what is between them.
func fieldPathTokens(s string) []string {
	var toks []string
	for s != "" {
		n := tokenLen(s)
		toks, s = append(toks, s[:n]), s[n:]
	}
	return toks
}

func tokenLen(s string) int {
	if s[0] == '\'' {
		for i := 1; i < len(s); i++ {
			if s[i] == '\'' && s[i-1] != '\\' {
				return i + 1
			}
		}
		return len(s)
	}
	if n := strings.IndexAny(s, ".[]"); n > 0 {
		return n
	} else if n == 0 {
		return 1
	}
	return len(s)
}
