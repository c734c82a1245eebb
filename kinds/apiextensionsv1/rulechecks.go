package apiextensionsv1

import (
	"regexp"
	"strings"

	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

var newlines = regexp.MustCompile(`[\n\r]+`)

var ruleReasons = []string{schema.ReasonDuplicate, schema.ReasonForbidden, schema.ReasonInvalid, schema.ReasonRequired}

// ruleShape checks one rule (at p) of the node s, in kube's order.
func ruleShape(m map[string]any, s *schema.Schema, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	str := func(k string) string { v, _ := m[k].(string); return v }
	rule, msg := strings.TrimSpace(str("rule")), strings.TrimSpace(str("message"))
	switch {
	case rule == "":
		errs = append(errs, status.Required(p.Child("rule"), "rule is not specified"))
	case str("message") != "" && msg == "":
		errs = append(errs, status.InvalidValue(p.Child("message"), str("message"), "must be non-empty if specified"))
	case newlines.MatchString(msg):
		errs = append(errs, status.InvalidValue(p.Child("message"), str("message"), "must not contain line breaks"))
	case newlines.MatchString(rule) && msg == "":
		errs = append(errs, status.Required(p.Child("message"), "message must be specified if rule contains line breaks"))
	}
	if me := str("messageExpression"); me != "" && strings.TrimSpace(me) == "" {
		errs = append(errs, status.Required(p.Child("messageExpression"), "messageExpression must be non-empty if specified"))
	}
	if reason, ok := m["reason"].(string); ok && reason != "" && !contains(ruleReasons, reason) {
		errs = append(errs, status.NotSupported(p.Child("reason"), reason, ruleReasons))
	}
	fp := str("fieldPath")
	if fp == "" {
		return errs
	}
	if strings.TrimSpace(fp) == "" {
		errs = append(errs, status.InvalidValue(p.Child("fieldPath"), fp, "must be non-empty if specified"))
	}
	if newlines.MatchString(fp) {
		errs = append(errs, status.InvalidValue(p.Child("fieldPath"), fp, "must not contain line breaks"))
	}
	if s != nil {
		if _, _, err := s.RuleFieldPath(fp); err != nil {
			errs = append(errs, status.InvalidValue(p.Child("fieldPath"), fp, "must be a valid path"))
		}
	}
	return errs
}

// withoutRules copies the structural part of doc without its rules, so
// that a schema can be built to check their fieldPaths against.
func withoutRules(doc map[string]any) map[string]any {
	out := make(map[string]any, len(doc))
	for k, v := range doc {
		switch k {
		case "x-kubernetes-validations":
			continue
		case "items", "additionalProperties":
			if m, ok := v.(map[string]any); ok {
				v = withoutRules(m)
			}
		case "properties":
			if props, ok := v.(map[string]any); ok {
				cp := make(map[string]any, len(props))
				for name, sub := range props {
					if m, ok := sub.(map[string]any); ok {
						sub = withoutRules(m)
					}
					cp[name] = sub
				}
				v = cp
			}
		}
		out[k] = v
	}
	return out
}
