package schema

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"unicode/utf8"
)

// checkNode reports constraints of s that contradict each other, as an
// error naming the Go field at where.
func checkNode(s *Schema, where string) error {
	msg := nodeProblem(s)
	if msg == "" {
		return nil
	}
	return fmt.Errorf("schema: %s: %s", where, msg)
}

func nodeProblem(s *Schema) string {
	if err := checkRules(s); err != nil {
		return err.Error()
	}
	switch {
	case s.Minimum != nil && s.Maximum != nil && *s.Minimum > *s.Maximum:
		return "minimum is above maximum"
	case badRange(s.MinLength, s.MaxLength):
		return "minLength is above maxLength"
	case badRange(s.MinItems, s.MaxItems):
		return "minItems is above maxItems"
	case badRange(s.MinProperties, s.MaxProperties):
		return "minProperties is above maxProperties"
	}
	if msg := listProblem(s); msg != "" {
		return msg
	}
	if s.Default != nil {
		if err := checkValue(s, s.Default, "default"); err != nil {
			return err.Error()
		}
	}
	return ""
}

func badRange(lo, hi *int64) bool { return lo != nil && hi != nil && *lo > *hi }

// listProblem checks the list extensions against the item schema.
func listProblem(s *Schema) string {
	if len(s.XListMapKeys) > 0 && s.XListType != "map" {
		return "listMapKey needs listType map"
	}
	items := s.Items
	switch s.XListType {
	case "map":
		if len(s.XListMapKeys) == 0 {
			return "listType map needs listMapKey"
		}
		if items == nil || items.Type != "object" {
			return "listType map needs object items"
		}
		for _, k := range s.XListMapKeys {
			p := items.Properties[k]
			switch {
			case p == nil:
				return fmt.Sprintf("listMapKey %q is not a field of the items", k)
			case !isScalar(p):
				return fmt.Sprintf("listMapKey %q is not a scalar field", k)
			case p.Default == nil && !slices.Contains(items.Required, k):
				return fmt.Sprintf("listMapKey %q must be a required field of the items (or have a default)", k)
			}
		}
	case "set":
		if items == nil || !(isScalar(items) || items.XMapType == "atomic" || items.XListType == "atomic") {
			return "listType set needs scalar or atomic items"
		}
	}
	if s.XPatchMergeKey != "" && (items == nil || items.Type != "object" || items.Properties[s.XPatchMergeKey] == nil) {
		return fmt.Sprintf("patchMergeKey %q is not a field of the items", s.XPatchMergeKey)
	}
	return ""
}

func isScalar(s *Schema) bool {
	switch s.Type {
	case "string", "integer", "number", "boolean":
		return true
	}
	return s.XIntOrString
}

// checkValue reports whether the decoded JSON value v satisfies s; what
// names the value in messages ("default", "enum value").
func checkValue(s *Schema, v any, what string) error {
	if v == nil {
		if s.Nullable || s.Type == "" {
			return nil
		}
		return fmt.Errorf("%s is null but the field is not nullable", what)
	}
	if err := checkType(s, v, what); err != nil {
		return err
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return jsonEqual(e, v) }) {
		return fmt.Errorf("%s %v is not one of the enum values", what, v)
	}
	return nil
}

func checkType(s *Schema, v any, what string) error {
	if s.XIntOrString {
		switch v.(type) {
		case int64, string:
			return checkBounds(s, v, what)
		}
		return fmt.Errorf("%s must be an integer or a string", what)
	}
	ok := false
	switch s.Type {
	case "":
		return nil
	case "string":
		_, ok = v.(string)
	case "integer":
		_, ok = v.(int64)
	case "number":
		_, ok = toFloat(v)
	case "boolean":
		_, ok = v.(bool)
	case "array":
		_, ok = v.([]any)
	case "object":
		_, ok = v.(map[string]any)
	}
	if !ok {
		return fmt.Errorf("%s %v is not of type %s", what, v, s.Type)
	}
	return checkBounds(s, v, what)
}

// checkBounds checks a value already known to be of the node's type.
func checkBounds(s *Schema, v any, what string) error {
	switch t := v.(type) {
	case string:
		n := int64(utf8.RuneCountInString(t))
		if (s.MinLength != nil && n < *s.MinLength) || (s.MaxLength != nil && n > *s.MaxLength) {
			return fmt.Errorf("%s %q has a length outside the bounds", what, t)
		}
		if s.Pattern != "" {
			if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(t) {
				return fmt.Errorf("%s %q does not match pattern %s", what, t, s.Pattern)
			}
		}
	case int64, float64:
		return checkNumber(s, v, what)
	case []any:
		return checkItems(s, t, what)
	case map[string]any:
		return checkObject(s, t, what)
	}
	return nil
}

func checkNumber(s *Schema, v any, what string) error {
	f, _ := toFloat(v)
	if s.Minimum != nil && (f < *s.Minimum || (s.ExclusiveMinimum && f == *s.Minimum)) {
		return fmt.Errorf("%s %v is below the minimum %v", what, v, *s.Minimum)
	}
	if s.Maximum != nil && (f > *s.Maximum || (s.ExclusiveMaximum && f == *s.Maximum)) {
		return fmt.Errorf("%s %v is above the maximum %v", what, v, *s.Maximum)
	}
	if s.MultipleOf != nil && !isMultiple(f, *s.MultipleOf) {
		return fmt.Errorf("%s %v is not a multiple of %v", what, v, *s.MultipleOf)
	}
	return nil
}

func checkItems(s *Schema, items []any, what string) error {
	n := int64(len(items))
	if (s.MinItems != nil && n < *s.MinItems) || (s.MaxItems != nil && n > *s.MaxItems) {
		return fmt.Errorf("%s has a number of items outside the bounds", what)
	}
	if s.Items == nil {
		return nil
	}
	for i, item := range items {
		if err := checkValue(s.Items, item, fmt.Sprintf("%s[%d]", what, i)); err != nil {
			return err
		}
	}
	return nil
}

func checkObject(s *Schema, obj map[string]any, what string) error {
	n := int64(len(obj))
	if (s.MinProperties != nil && n < *s.MinProperties) || (s.MaxProperties != nil && n > *s.MaxProperties) {
		return fmt.Errorf("%s has a number of properties outside the bounds", what)
	}
	for k, v := range obj {
		p := s.Properties[k]
		if p == nil {
			p = s.AdditionalProperties
		}
		if p == nil {
			if s.XPreserveUnknownFields {
				continue
			}
			return fmt.Errorf("%s has unknown field %q", what, k)
		}
		if err := checkValue(p, v, what+"."+k); err != nil {
			return err
		}
	}
	return nil
}

func toFloat(v any) (float64, bool) {
	switch t := v.(type) {
	case int64:
		return float64(t), true
	case float64:
		return t, true
	}
	return 0, false
}

// jsonEqual compares decoded JSON values, treating int64 and float64 of
// the same value as equal.
func jsonEqual(a, b any) bool {
	fa, okA := toFloat(a)
	fb, okB := toFloat(b)
	if okA && okB {
		return fa == fb
	}
	return reflect.DeepEqual(a, b)
}
