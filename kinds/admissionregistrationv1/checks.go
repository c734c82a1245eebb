package admissionregistrationv1

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// The checks of values kube-apiserver's validation of these kinds shares:
// names, selectors, rules. Messages are kube's, word for word.

const (
	dns1123SubdomainFmt = `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`
	dns1123SubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	dns1035LabelFmt     = `[a-z]([-a-z0-9]*[a-z0-9])?`
	dns1035LabelMsg     = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"
	labelValueFmt       = `(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?`
	labelValueMsg       = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)

var (
	dns1123Subdomain = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
	dns1035Label     = regexp.MustCompile("^" + dns1035LabelFmt + "$")
	labelValue       = regexp.MustCompile("^" + labelValueFmt + "$")
)

// subdomainErrors says why s is not a DNS subdomain.
func subdomainErrors(s string) []string {
	var errs []string
	if len(s) > 253 {
		errs = append(errs, "must be no more than 253 characters")
	}
	if !dns1123Subdomain.MatchString(s) {
		errs = append(errs, dns1123SubdomainMsg+" (e.g. 'example.com', regex used for validation is '"+dns1123SubdomainFmt+"')")
	}
	return errs
}

// dns1035Errors says why s is not a DNS-1035 label.
func dns1035Errors(s string) []string {
	var errs []string
	if len(s) > 63 {
		errs = append(errs, "must be no more than 63 characters")
	}
	if !dns1035Label.MatchString(s) {
		errs = append(errs, dns1035LabelMsg+" (e.g. 'my-name',  or 'abc-123', regex used for validation is '"+dns1035LabelFmt+"')")
	}
	return errs
}

// labelValueErrors says why s is not a label value.
func labelValueErrors(s string) []string {
	var errs []string
	if len(s) > 63 {
		errs = append(errs, "must be no more than 63 bytes")
	}
	if !labelValue.MatchString(s) {
		errs = append(errs, labelValueMsg+" (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '"+labelValueFmt+"')")
	}
	return errs
}

// pathSegmentErrors says why s cannot be a path segment.
func pathSegmentErrors(s string) []string {
	if s == "." || s == ".." {
		return []string{fmt.Sprintf("may not be '%s'", s)}
	}
	var errs []string
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(s, bad) {
			errs = append(errs, fmt.Sprintf("may not contain '%s'", bad))
		}
	}
	return errs
}

// fullyQualifiedNameErrors checks a webhook's name: a DNS subdomain of at
// least three segments.
func fullyQualifiedNameErrors(p status.Path, name string) status.FieldErrors {
	if name == "" {
		return status.FieldErrors{status.Required(p, "")}
	}
	if errs := subdomainErrors(name); len(errs) > 0 {
		return status.FieldErrors{status.InvalidValue(p, name, strings.Join(errs, ","))}
	}
	if len(strings.Split(name, ".")) < 3 {
		return status.FieldErrors{status.InvalidValue(p, name, "should be a domain with at least three segments separated by dots")}
	}
	return nil
}

// qualifiedNameErrors checks a qualified name (a label key's form).
func qualifiedNameErrors(p status.Path, name string) status.FieldErrors {
	var errs status.FieldErrors
	for _, msg := range meta.QualifiedNameErrors(name) {
		errs = append(errs, status.InvalidValue(p, name, msg))
	}
	return errs
}

// validateSelector checks a label selector as meta/v1 validation does;
// allowBadValues lets values that are not label values stay, as kube lets
// them stay in a webhook that already had them.
func validateSelector(s *LabelSelector, allowBadValues bool, p status.Path) status.FieldErrors {
	if s == nil {
		return nil
	}
	var errs status.FieldErrors
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		errs = append(errs, qualifiedNameErrors(p.Child("matchLabels"), k)...)
		for _, msg := range labelValueErrors(s.MatchLabels[k]) {
			errs = append(errs, status.InvalidValue(p.Child("matchLabels"), s.MatchLabels[k], msg))
		}
	}
	for i, e := range s.MatchExpressions {
		errs = append(errs, validateRequirement(e, allowBadValues, p.Child("matchExpressions").Index(i))...)
	}
	return errs
}

func validateRequirement(e LabelSelectorRequirement, allowBadValues bool, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	switch e.Operator {
	case "In", "NotIn":
		if len(e.Values) == 0 {
			errs = append(errs, status.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case "Exists", "DoesNotExist":
		if len(e.Values) > 0 {
			errs = append(errs, status.ForbiddenField(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	default:
		errs = append(errs, status.InvalidValue(p.Child("operator"), e.Operator, "not a valid selector operator"))
	}
	errs = append(errs, qualifiedNameErrors(p.Child("key"), e.Key)...)
	if !allowBadValues {
		for i, v := range e.Values {
			for _, msg := range labelValueErrors(v) {
				errs = append(errs, status.InvalidValue(p.Child("values").Index(i), v, msg))
			}
		}
	}
	return errs
}

// selectorHasBadValues reports whether a selector has values that are not
// label values.
func selectorHasBadValues(s *LabelSelector) bool {
	return s != nil && len(validateSelector(s, false, status.NewPath(""))) > 0
}

var supportedOperations = []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}

// validateRuleWithOperations checks the operations and the rule.
func validateRuleWithOperations(r *RuleWithOperations, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if len(r.Operations) == 0 {
		errs = append(errs, status.Required(p.Child("operations"), ""))
	}
	if len(r.Operations) > 1 && slices.Contains(r.Operations, OperationAll) {
		errs = append(errs, status.InvalidValue(p.Child("operations"), r.Operations,
			"if '*' is present, must not specify other operations"))
	}
	for i, op := range r.Operations {
		if !slices.Contains(supportedOperations, string(op)) {
			errs = append(errs, status.NotSupported(p.Child("operations").Index(i), string(op), supportedOperations))
		}
	}
	return append(errs, validateRule(&r.Rule, p)...)
}

var validScopes = []string{"*", "Cluster", "Namespaced"}

// validateRule checks groups, versions, resources (subresources allowed)
// and scope.
func validateRule(r *Rule, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if len(r.APIGroups) == 0 {
		errs = append(errs, status.Required(p.Child("apiGroups"), ""))
	}
	if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
		errs = append(errs, status.InvalidValue(p.Child("apiGroups"), r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(r.APIVersions) == 0 {
		errs = append(errs, status.Required(p.Child("apiVersions"), ""))
	}
	if len(r.APIVersions) > 1 && slices.Contains(r.APIVersions, "*") {
		errs = append(errs, status.InvalidValue(p.Child("apiVersions"), r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, status.Required(p.Child("apiVersions").Index(i), ""))
		}
	}
	errs = append(errs, validateResources(r.Resources, p.Child("resources"))...)
	if r.Scope != nil && !slices.Contains(validScopes, string(*r.Scope)) {
		errs = append(errs, status.NotSupported(p.Child("scope"), string(*r.Scope), validScopes))
	}
	return errs
}

// validateResources checks resources and resource/subresource forms with
// their wildcards: "*/*" alone, "*" not with plain resources, "r/*" not
// with other subresources of r, "*/s" not with s of other resources.
func validateResources(resources []string, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if len(resources) == 0 {
		errs = append(errs, status.Required(p, ""))
	}
	allSubsOf, allResOf := map[string]bool{}, map[string]bool{}
	doubleWild, singleWild, plain := false, false, false
	for i, rs := range resources {
		if rs == "" {
			errs = append(errs, status.Required(p.Index(i), ""))
			continue
		}
		doubleWild = doubleWild || rs == "*/*"
		singleWild = singleWild || rs == "*"
		res, sub, hasSub := strings.Cut(rs, "/")
		if !hasSub {
			// As kube, only the last plain resource decides.
			plain = rs != "*"
			continue
		}
		if allSubsOf[res] {
			errs = append(errs, status.InvalidValue(p.Index(i), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if allResOf[sub] {
			errs = append(errs, status.InvalidValue(p.Index(i), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			allSubsOf[res] = true
		}
		if res == "*" {
			allResOf[sub] = true
		}
	}
	if len(resources) > 1 && doubleWild {
		errs = append(errs, status.InvalidValue(p, resources, "if '*/*' is present, must not specify other resources"))
	}
	if singleWild && plain {
		errs = append(errs, status.InvalidValue(p, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

// validateMatchConditions checks at most 64 conditions with unique names
// and expressions.
func validateMatchConditions(conds []MatchCondition, o *checkOptions, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if len(conds) > 64 {
		errs = append(errs, status.TooMany(p, len(conds), 64))
	}
	seen := map[string]bool{}
	for i, c := range conds {
		cp := p.Index(i)
		if expr := strings.TrimSpace(c.Expression); expr == "" {
			errs = append(errs, status.Required(cp.Child("expression"), ""))
		} else {
			errs = append(errs, o.check(Expression{Path: cp.Child("expression"), Kind: MatchConditionExpression, Expression: expr,
				HasParams: o.allowParamsInMatchConditions, HasAuthorizer: true, Stored: o.stored[MatchConditionExpression][expr]})...)
		}
		if c.Name == "" {
			errs = append(errs, status.Required(cp.Child("name"), ""))
		} else {
			errs = append(errs, qualifiedNameErrors(cp.Child("name"), c.Name)...)
		}
		if c.Name != "" {
			if seen[c.Name] {
				errs = append(errs, status.Duplicate(cp.Child("name"), c.Name))
			}
			seen[c.Name] = true
		}
	}
	return errs
}
