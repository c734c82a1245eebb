package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// tagRule applies one struct tag to a field's schema.
type tagRule struct {
	key   string
	apply func(s *Schema, v string) error
}

// tagRules lists the supported tags in the order they are applied: the
// ones that change the type first, default last so that it is checked
// against everything else.
func tagRules() []tagRule {
	return []tagRule{
		{"intOrString", applyIntOrString},
		{"format", func(s *Schema, v string) error { s.Format = v; return nil }},
		{"description", func(s *Schema, v string) error { s.Description = v; return nil }},
		{"nullable", boolTag(func(s *Schema, b bool) { s.Nullable = b })},
		{"preserveUnknownFields", boolTag(func(s *Schema, b bool) { s.XPreserveUnknownFields = b })},
		{"embeddedResource", applyEmbedded},
		{"minimum", numberTag(func(s *Schema, f float64) { s.Minimum = &f })},
		{"maximum", numberTag(func(s *Schema, f float64) { s.Maximum = &f })},
		{"exclusiveMinimum", numericOnly(boolTag(func(s *Schema, b bool) { s.ExclusiveMinimum = b }))},
		{"exclusiveMaximum", numericOnly(boolTag(func(s *Schema, b bool) { s.ExclusiveMaximum = b }))},
		{"pattern", applyPattern},
		{"minLength", sizeTag("string", func(s *Schema, n *int64) { s.MinLength = n })},
		{"maxLength", sizeTag("string", func(s *Schema, n *int64) { s.MaxLength = n })},
		{"minItems", sizeTag("array", func(s *Schema, n *int64) { s.MinItems = n })},
		{"maxItems", sizeTag("array", func(s *Schema, n *int64) { s.MaxItems = n })},
		{"minProperties", sizeTag("object", func(s *Schema, n *int64) { s.MinProperties = n })},
		{"maxProperties", sizeTag("object", func(s *Schema, n *int64) { s.MaxProperties = n })},
		{"enum", applyEnum},
		{"listType", applyListType},
		{"listMapKey", applyListMapKey},
		{"mapType", applyMapType},
		{"patchStrategy", applyPatchStrategy},
		{"patchMergeKey", applyPatchMergeKey},
		{"default", applyDefault},
	}
}

// applyTags applies the schema tags of a struct field to its schema s.
func applyTags(s *Schema, tag reflect.StructTag, where string) error {
	for _, r := range tagRules() {
		v, ok := tag.Lookup(r.key)
		if !ok {
			continue
		}
		if err := r.apply(s, v); err != nil {
			return fmt.Errorf("schema: %s: tag %s:%q: %w", where, r.key, v, err)
		}
	}
	if err := applyRuleTags(s, tag); err != nil {
		return fmt.Errorf("schema: %s: %w", where, err)
	}
	return nil
}

func boolTag(set func(*Schema, bool)) func(*Schema, string) error {
	return func(s *Schema, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("not a boolean")
		}
		set(s, b)
		return nil
	}
}

func numericOnly(apply func(*Schema, string) error) func(*Schema, string) error {
	return func(s *Schema, v string) error {
		if s.Type != "integer" && s.Type != "number" {
			return fmt.Errorf("applies to numbers, not %s", typeWord(s))
		}
		return apply(s, v)
	}
}

func numberTag(set func(*Schema, float64)) func(*Schema, string) error {
	return numericOnly(func(s *Schema, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("not a number")
		}
		set(s, f)
		return nil
	})
}

// sizeTag parses a non-negative count that bounds a node of type typ.
func sizeTag(typ string, set func(*Schema, *int64)) func(*Schema, string) error {
	return func(s *Schema, v string) error {
		if s.Type != typ && !(typ == "string" && s.XIntOrString) {
			return fmt.Errorf("applies to %ss, not %s", typ, typeWord(s))
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("not a non-negative integer")
		}
		set(s, &n)
		return nil
	}
}

func applyIntOrString(s *Schema, v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("not a boolean")
	}
	if !b {
		return nil
	}
	if s.Type != "" {
		return fmt.Errorf("applies to untyped fields (any, json.RawMessage or a Provider), not %s", typeWord(s))
	}
	s.XIntOrString, s.XPreserveUnknownFields = true, false
	return nil
}

func applyEmbedded(s *Schema, v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("not a boolean")
	}
	if b && s.Type != "object" {
		return fmt.Errorf("applies to objects, not %s", typeWord(s))
	}
	s.XEmbeddedResource = b
	return nil
}

func applyPattern(s *Schema, v string) error {
	if s.Type != "string" && !s.XIntOrString {
		return fmt.Errorf("applies to strings, not %s", typeWord(s))
	}
	if _, err := regexp.Compile(v); err != nil {
		return fmt.Errorf("not a regular expression: %w", err)
	}
	s.Pattern = v
	return nil
}

func applyEnum(s *Schema, v string) error {
	var values []any
	if strings.HasPrefix(strings.TrimSpace(v), "[") {
		decoded, err := decodeJSON(v)
		if err != nil {
			return err
		}
		list, ok := decoded.([]any)
		if !ok {
			return fmt.Errorf("not a JSON array")
		}
		values = list
	} else {
		for _, item := range strings.Split(v, ",") {
			val, err := scalarValue(s, strings.TrimSpace(item))
			if err != nil {
				return err
			}
			values = append(values, val)
		}
	}
	for _, val := range values {
		if err := checkValue(s, val, "enum value"); err != nil {
			return err
		}
	}
	s.Enum = values
	return nil
}

// scalarValue parses one bare enum value according to the node's type.
func scalarValue(s *Schema, v string) (any, error) {
	switch s.Type {
	case "string":
		return v, nil
	case "integer":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", v)
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", v)
		}
		return f, nil
	case "boolean":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("%q is not a boolean", v)
		}
		return b, nil
	}
	return nil, fmt.Errorf("applies to scalars, not %s (use a JSON array)", typeWord(s))
}

func applyListType(s *Schema, v string) error {
	if s.Type != "array" {
		return fmt.Errorf("applies to arrays, not %s", typeWord(s))
	}
	switch v {
	case "atomic", "set", "map":
		s.XListType = v
		return nil
	}
	return fmt.Errorf("must be atomic, set or map")
}

func applyListMapKey(s *Schema, v string) error {
	if s.Type != "array" {
		return fmt.Errorf("applies to arrays, not %s", typeWord(s))
	}
	s.XListMapKeys = nil
	for _, k := range strings.Split(v, ",") {
		if k = strings.TrimSpace(k); k == "" {
			return fmt.Errorf("empty key")
		}
		s.XListMapKeys = append(s.XListMapKeys, k)
	}
	return nil
}

func applyMapType(s *Schema, v string) error {
	if s.Type != "object" {
		return fmt.Errorf("applies to objects, not %s", typeWord(s))
	}
	if v != "atomic" && v != "granular" {
		return fmt.Errorf("must be atomic or granular")
	}
	s.XMapType = v
	return nil
}

func applyPatchStrategy(s *Schema, v string) error {
	for _, p := range strings.Split(v, ",") {
		if p != "merge" && p != "replace" && p != "retainKeys" {
			return fmt.Errorf("%q is not merge, replace or retainKeys", p)
		}
	}
	s.XPatchStrategy = v
	return nil
}

func applyPatchMergeKey(s *Schema, v string) error {
	if s.Type != "array" {
		return fmt.Errorf("applies to arrays, not %s", typeWord(s))
	}
	if v == "" {
		return fmt.Errorf("empty key")
	}
	s.XPatchMergeKey = v
	return nil
}

func applyDefault(s *Schema, v string) error {
	val, err := decodeJSON(v)
	if err != nil {
		return err
	}
	s.Default = val
	return nil
}

// decodeJSON decodes one JSON value, keeping integers as int64 as
// meta.Unstructured does.
func decodeJSON(v string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(v))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("not a JSON value (strings need quotes): %w", err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return normalizeNumbers(out), nil
}

func normalizeNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = normalizeNumbers(e)
		}
	case json.Number:
		if n, err := t.Int64(); err == nil && !bytes.ContainsAny([]byte(t), ".eE") {
			return n
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

// typeWord names the type of s for messages.
func typeWord(s *Schema) string {
	if s.Type == "" {
		return "an untyped value"
	}
	return s.Type
}
