package schema

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/kapi-dev/kapi/status"
)

// Rule is one entry of x-kubernetes-validations: a CEL expression that
// must hold for every value of the node it sits on, as CustomResource-
// Definitions declare them. The expression sees the value as self and,
// on updates where an old value correlates, the old one as oldSelf.
type Rule struct {
	// Rule is the CEL expression; it must evaluate to a bool.
	Rule string `json:"rule"`
	// Message is reported when the rule is false; default: "failed rule:
	// " and the rule.
	Message string `json:"message,omitempty"`
	// MessageExpression is a CEL expression evaluating to the message;
	// it wins over Message when it evaluates to a non-empty string.
	MessageExpression string `json:"messageExpression,omitempty"`
	// Reason is the cause's reason: FieldValueInvalid (the default),
	// FieldValueForbidden, FieldValueRequired or FieldValueDuplicate.
	Reason string `json:"reason,omitempty"`
	// FieldPath is where, below the node, the error is reported, as a
	// JSON path such as ".spec.replicas" or ".labels['app']".
	FieldPath string `json:"fieldPath,omitempty"`
	// OptionalOldSelf makes the rule run on creates and on values with no
	// old counterpart too, with oldSelf as an optional value.
	OptionalOldSelf *bool `json:"optionalOldSelf,omitempty"`
}

// The reasons a Rule may give.
const (
	ReasonInvalid   = "FieldValueInvalid"
	ReasonForbidden = "FieldValueForbidden"
	ReasonRequired  = "FieldValueRequired"
	ReasonDuplicate = "FieldValueDuplicate"
)

// RuleProvider is implemented by Go types that carry validation rules:
// [FromType] appends the rules a pointer to the zero value returns to
// the schema of the type, wherever the type is used.
type RuleProvider interface {
	ValidationRules() []Rule
}

// RuleEngine compiles the rules of a kind's schema. The CEL engine lives
// in its own module (github.com/kapi-dev/kapi/cel) so that servers
// without rules do not carry it.
type RuleEngine interface {
	// Compile compiles every rule of the schema tree rooted at s, the
	// root of a kind, and checks their estimated cost. root names s in
	// the errors, as kube-apiserver names a CustomResourceDefinition's
	// schema (spec.validation.openAPIV3Schema, or
	// spec.versions[1].schema.openAPIV3Schema). The error is a
	// status.FieldErrors with one error per problem, at the rule's path
	// (root.properties[spec].x-kubernetes-validations[0].rule).
	Compile(s *Schema, root status.Path) (RuleValidator, error)
}

// RuleValidator evaluates a kind's compiled rules.
type RuleValidator interface {
	// Validate evaluates the rules on obj, the decoded JSON form of a
	// whole object, against old, the stored object's (nil on create).
	// Errors are the broken rules; warnings are rules broken by values
	// that did not change, which are let through (ratcheting).
	Validate(ctx context.Context, obj, old map[string]any) (errs status.FieldErrors, warnings []string)
}

// MetadataNamesOnly is implemented by a [RuleValidator] whose rules read
// nothing of an object's metadata but its name and generateName, as CEL
// rules (kube-apiserver shows them no more): the server may then leave
// other metadata, such as managedFields, out of the objects it gives it.
type MetadataNamesOnly interface {
	RuleValidator
	// MetadataNamesOnly marks the validator; it does nothing.
	MetadataNamesOnly()
}

// HasRules reports whether any node of s carries x-kubernetes-validations.
func HasRules(s *Schema) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 || HasRules(s.Items) || HasRules(s.AdditionalProperties) {
		return true
	}
	for _, p := range s.Properties {
		if HasRules(p) {
			return true
		}
	}
	return false
}

// checkRules checks what can be checked of a node's rules without
// compiling them, as kube-apiserver checks a CRD's: a rule is required,
// messages are one line, reasons are known and field paths lead to a
// field of the node.
func checkRules(s *Schema) error {
	for i, r := range s.XValidations {
		where := fmt.Sprintf("x-kubernetes-validations[%d]", i)
		rule, msg := strings.TrimSpace(r.Rule), strings.TrimSpace(r.Message)
		switch {
		case rule == "":
			return fmt.Errorf("%s.rule: Required value: rule is not specified", where)
		case r.Message != "" && msg == "":
			return fmt.Errorf("%s.message: Invalid value: %q: must be non-empty if specified", where, r.Message)
		case strings.ContainsAny(msg, "\r\n"):
			return fmt.Errorf("%s.message: Invalid value: %q: must not contain line breaks", where, r.Message)
		case strings.ContainsAny(rule, "\r\n") && msg == "":
			return fmt.Errorf("%s.message: Required value: message must be specified if rule contains line breaks", where)
		case r.MessageExpression != "" && strings.TrimSpace(r.MessageExpression) == "":
			return fmt.Errorf("%s.messageExpression: Required value: messageExpression must be non-empty if specified", where)
		}
		switch r.Reason {
		case "", ReasonInvalid, ReasonForbidden, ReasonRequired, ReasonDuplicate:
		default:
			return fmt.Errorf("%s.reason: Unsupported value: %q: supported values: %q, %q, %q, %q", where,
				r.Reason, ReasonDuplicate, ReasonForbidden, ReasonInvalid, ReasonRequired)
		}
		if r.FieldPath != "" {
			if strings.TrimSpace(r.FieldPath) == "" || strings.ContainsAny(r.FieldPath, "\r\n") {
				return fmt.Errorf("%s.fieldPath: Invalid value: %q: must be non-empty and one line", where, r.FieldPath)
			}
			if _, _, err := s.RuleFieldPath(r.FieldPath); err != nil {
				return fmt.Errorf("%s.fieldPath: Invalid value: %q: must be a valid path: %v", where, r.FieldPath, err)
			}
		}
	}
	return nil
}

// RuleFieldPath resolves a rule's fieldPath (".a.b", ".m['key']") below
// s and returns it as a status path relative to s and the schema it
// leads to.
func (s *Schema) RuleFieldPath(path string) (status.Path, *Schema, error) {
	var p status.Path
	cur := s
	rest := path
	for rest != "" {
		var name string
		switch rest[0] {
		case '.':
			end := strings.IndexAny(rest[1:], ".[")
			if end < 0 {
				end = len(rest) - 1
			}
			name, rest = rest[1:1+end], rest[1+end:]
			if name == "" {
				return p, nil, fmt.Errorf("empty field name")
			}
		case '[':
			lit, after, err := quoted(rest[1:])
			if err != nil {
				return p, nil, err
			}
			if !strings.HasPrefix(after, "]") {
				return p, nil, fmt.Errorf("expected ] after %q", lit)
			}
			name, rest = lit, after[1:]
		default:
			return p, nil, fmt.Errorf("expected [ or . but got: %s", rest[:1])
		}
		switch {
		case cur.Properties[name] != nil:
			p, cur = p.Child(name), cur.Properties[name]
		case cur.AdditionalProperties != nil && len(cur.Properties) == 0:
			p, cur = p.Key(name), cur.AdditionalProperties
		default:
			return p, nil, fmt.Errorf("does not refer to a valid field")
		}
	}
	return p, cur, nil
}

// quoted reads a single-quoted string literal at the start of s and
// returns its value and the rest of s.
func quoted(s string) (string, string, error) {
	if !strings.HasPrefix(s, "'") {
		return "", "", fmt.Errorf("expected single quoted string")
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			return b.String(), s[i+1:], nil
		case '\\':
			if i+1 == len(s) {
				return "", "", fmt.Errorf("invalid string literal")
			}
			i++
			switch e := s[i]; e {
			case '\'', '\\':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				return "", "", fmt.Errorf("invalid escape char \\%c", e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("unterminated string literal")
}

// kwValidations parses x-kubernetes-validations.
func kwValidations(s *Schema, v any, where string) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("schema: %s: must be an array of rules", where)
	}
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return fmt.Errorf("schema: %s[%d]: must be an object", where, i)
		}
		r, err := ruleFromMap(m)
		if err != nil {
			return fmt.Errorf("schema: %s[%d].%w", where, i, err)
		}
		s.XValidations = append(s.XValidations, r)
	}
	return nil
}

func ruleFromMap(m map[string]any) (Rule, error) {
	var r Rule
	for _, k := range sortedKeys(m) {
		if k == "optionalOldSelf" {
			b, ok := m[k].(bool)
			if !ok {
				return r, fmt.Errorf("%s: must be a boolean", k)
			}
			r.OptionalOldSelf = &b
			continue
		}
		str, ok := m[k].(string)
		if !ok {
			return r, fmt.Errorf("%s: must be a string", k)
		}
		switch k {
		case "rule":
			r.Rule = str
		case "message":
			r.Message = str
		case "messageExpression":
			r.MessageExpression = str
		case "reason":
			r.Reason = str
		case "fieldPath":
			r.FieldPath = str
		default:
			return r, fmt.Errorf("%s: unknown field", k)
		}
	}
	return r, nil
}

// applyRuleTags reads a rule from the rule, message, messageExpression,
// reason, fieldPath and optionalOldSelf tags of a struct field.
func applyRuleTags(s *Schema, tag interface{ Lookup(string) (string, bool) }) error {
	rule, ok := tag.Lookup("rule")
	if !ok {
		for _, k := range []string{"message", "messageExpression", "reason", "fieldPath", "optionalOldSelf"} {
			if _, set := tag.Lookup(k); set {
				return fmt.Errorf("tag %s needs a rule tag", k)
			}
		}
		return nil
	}
	r := Rule{Rule: rule}
	r.Message, _ = tag.Lookup("message")
	r.MessageExpression, _ = tag.Lookup("messageExpression")
	r.Reason, _ = tag.Lookup("reason")
	r.FieldPath, _ = tag.Lookup("fieldPath")
	if v, ok := tag.Lookup("optionalOldSelf"); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("tag optionalOldSelf:%q: not a boolean", v)
		}
		r.OptionalOldSelf = &b
	}
	s.XValidations = append(s.XValidations, r)
	return nil
}
