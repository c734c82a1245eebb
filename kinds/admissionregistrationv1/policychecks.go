package admissionregistrationv1

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/status"
)

const (
	maxAuditAnnotations        = 20
	maxAuditAnnotationValueLen = 5 * 1024
)

var (
	validationReasons   = []string{"Forbidden", "Invalid", "RequestEntityTooLarge"}
	mutatingOperations  = []string{"*", "CONNECT", "CREATE", "UPDATE"}
	patchTypes          = []string{"ApplyConfiguration", "JSONPatch"}
	validationActions   = []string{"Audit", "Deny", "Warn"}
	newlines            = regexp.MustCompile(`[\n\r]+`)
	celIdentifier       = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)
	celReservedWords    = []string{"true", "false", "null", "in", "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"}
	paramNotFoundValues = []string{"Deny", "Allow"}
)

// policyOptions are the check options of a policy: on update, match
// conditions are not checked again when neither they nor paramKind
// changed, and expressions already stored compile as stored ones.
func policyOptions(opts Options, paramKindSame, condsSame bool, stored map[ExpressionKind]map[string]bool) *checkOptions {
	return &checkOptions{expression: opts.CheckExpression, ignoreMatchConditions: paramKindSame && condsSame, stored: stored}
}

func storedSet(m map[ExpressionKind]map[string]bool, k ExpressionKind, expr string) {
	if m[k] == nil {
		m[k] = map[string]bool{}
	}
	m[k][expr] = true
}

// validateValidatingPolicy checks a ValidatingAdmissionPolicy; old is nil
// on create.
func validateValidatingPolicy(p, old *ValidatingAdmissionPolicy, opts Options) status.FieldErrors {
	o := policyOptions(opts, false, false, nil)
	if old != nil {
		stored := map[ExpressionKind]map[string]bool{}
		for _, c := range old.Spec.MatchConditions {
			storedSet(stored, MatchConditionExpression, c.Expression)
		}
		for _, v := range old.Spec.Validations {
			storedSet(stored, ValidationExpression, v.Expression)
			if v.MessageExpression != "" {
				storedSet(stored, MessageExpression, v.MessageExpression)
			}
		}
		for _, a := range old.Spec.AuditAnnotations {
			storedSet(stored, AuditAnnotationExpression, a.ValueExpression)
		}
		o = policyOptions(opts, reflect.DeepEqual(p.Spec.ParamKind, old.Spec.ParamKind),
			equalConditions(p.Spec.MatchConditions, old.Spec.MatchConditions), stored)
	}
	return validateValidatingPolicySpec(p.Name, &p.Spec, o, status.NewPath("spec"))
}

// equalConditions compares match conditions as kube's semantic equality
// does: an empty list is a missing one.
func equalConditions(a, b []MatchCondition) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func validateValidatingPolicySpec(name string, s *ValidatingAdmissionPolicySpec, o *checkOptions, p status.Path) status.FieldErrors {
	errs := validatePolicyHead(s.FailurePolicy, s.ParamKind, s.MatchConstraints, o, p)
	if !o.ignoreMatchConditions {
		errs = append(errs, validateMatchConditions(s.MatchConditions, o, p.Child("matchConditions"))...)
	}
	hasParams := s.ParamKind != nil
	for i, v := range s.Variables {
		errs = append(errs, validateVariable(&v, hasParams, o, p.Child("variables").Index(i))...)
	}
	if len(s.Validations) == 0 && len(s.AuditAnnotations) == 0 {
		const msg = "validations or auditAnnotations must contain at least one item"
		return append(errs, status.Required(p.Child("validations"), msg), status.Required(p.Child("auditAnnotations"), msg))
	}
	for i, v := range s.Validations {
		errs = append(errs, validateValidation(&v, hasParams, o, p.Child("validations").Index(i))...)
	}
	if s.AuditAnnotations == nil {
		return errs
	}
	if len(s.AuditAnnotations) > maxAuditAnnotations {
		errs = append(errs, status.InvalidValue(p.Child("auditAnnotations"), s.AuditAnnotations,
			fmt.Sprintf("must not have more than %d auditAnnotations", maxAuditAnnotations)))
	}
	keys := map[string]bool{}
	for i, a := range s.AuditAnnotations {
		ap := p.Child("auditAnnotations").Index(i)
		errs = append(errs, validateAuditAnnotation(name, &a, hasParams, o, ap)...)
		if keys[a.Key] {
			errs = append(errs, status.Duplicate(ap.Child("key"), a.Key))
		}
		keys[a.Key] = true
	}
	return errs
}

// validatePolicyHead checks what both policy kinds have first:
// failurePolicy, paramKind and matchConstraints (with resource rules).
func validatePolicyHead(fp *FailurePolicyType, pk *ParamKind, mc *MatchResources, o *checkOptions, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if fp == nil {
		errs = append(errs, status.Required(p.Child("failurePolicy"), ""))
	} else {
		errs = append(errs, enumErrors(p.Child("failurePolicy"), fp, failurePolicies)...)
	}
	if pk != nil {
		o.allowParamsInMatchConditions = true
		errs = append(errs, validateParamKind(pk, p.Child("paramKind"))...)
	}
	if mc == nil {
		return append(errs, status.Required(p.Child("matchConstraints"), ""))
	}
	errs = append(errs, validateMatchResources(mc, p.Child("matchConstraints"))...)
	if len(mc.ResourceRules) == 0 {
		errs = append(errs, status.Required(p.Child("matchConstraints").Child("resourceRules"), ""))
	}
	return errs
}

// validateParamKind requires an apiVersion (group/version, version a
// DNS-1035 label) and a kind.
func validateParamKind(pk *ParamKind, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	vp := p.Child("apiVersion")
	if pk.APIVersion == "" {
		errs = append(errs, status.Required(vp, ""))
	} else if strings.Count(pk.APIVersion, "/") > 1 {
		errs = append(errs, status.InvalidValue(vp, pk.APIVersion, "unexpected GroupVersion string: "+pk.APIVersion))
	} else {
		group, version, ok := strings.Cut(pk.APIVersion, "/")
		if !ok {
			group, version = "", pk.APIVersion
		}
		if pk.APIVersion == "/" {
			group, version = "", ""
		}
		if group != "" {
			if e := subdomainErrors(group); len(e) > 0 {
				errs = append(errs, status.InvalidValue(vp, group, strings.Join(e, ",")))
			}
		}
		if version == "" {
			errs = append(errs, status.InvalidValue(vp, pk.APIVersion, "version must be specified"))
		} else if e := dns1035Errors(version); len(e) > 0 {
			errs = append(errs, status.InvalidValue(vp, version, strings.Join(e, ",")))
		}
	}
	if pk.Kind == "" {
		errs = append(errs, status.Required(p.Child("kind"), ""))
	} else if e := dns1035Errors(strings.ToLower(pk.Kind)); len(e) > 0 {
		errs = append(errs, status.InvalidValue(p.Child("kind"), pk.Kind, "may have mixed case, but should otherwise match: "+strings.Join(e, ",")))
	}
	return errs
}

// validateMatchResources checks defaulted match resources: matchPolicy
// and both selectors are required, and each rule is checked.
func validateMatchResources(m *MatchResources, p status.Path) status.FieldErrors {
	if m == nil {
		return nil
	}
	var errs status.FieldErrors
	if m.MatchPolicy == nil {
		errs = append(errs, status.Required(p.Child("matchPolicy"), ""))
	} else {
		errs = append(errs, enumErrors(p.Child("matchPolicy"), m.MatchPolicy, matchPolicies)...)
	}
	if m.NamespaceSelector == nil {
		errs = append(errs, status.Required(p.Child("namespaceSelector"), ""))
	} else {
		errs = append(errs, validateSelector(m.NamespaceSelector, false, p.Child("namespaceSelector"))...)
	}
	if m.ObjectSelector == nil {
		errs = append(errs, status.Required(p.Child("objectSelector"), ""))
	} else {
		errs = append(errs, validateSelector(m.ObjectSelector, false, p.Child("objectSelector"))...)
	}
	for i := range m.ResourceRules {
		errs = append(errs, validateNamedRule(&m.ResourceRules[i], p.Child("resourceRules").Index(i))...)
	}
	for i := range m.ExcludeResourceRules {
		errs = append(errs, validateNamedRule(&m.ExcludeResourceRules[i], p.Child("excludeResourceRules").Index(i))...)
	}
	return errs
}

// validateNamedRule checks resource names (path segments, unique) and the
// rule.
func validateNamedRule(r *NamedRuleWithOperations, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	seen := map[string]bool{}
	for i, n := range r.ResourceNames {
		np := p.Child("resourceNames").Index(i)
		for _, msg := range pathSegmentErrors(n) {
			errs = append(errs, status.InvalidValue(np, n, msg))
		}
		if seen[n] {
			errs = append(errs, status.Duplicate(np, n))
		}
		seen[n] = true
	}
	return append(errs, validateRuleWithOperations(&r.RuleWithOperations, p)...)
}

// validateVariable requires a CEL identifier and an expression.
func validateVariable(v *Variable, hasParams bool, o *checkOptions, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if strings.TrimSpace(v.Name) == "" {
		errs = append(errs, status.Required(p.Child("name"), "name is not specified"))
	} else if !celIdentifier.MatchString(v.Name) || slices.Contains(celReservedWords, v.Name) {
		errs = append(errs, status.InvalidValue(p.Child("name"), v.Name, "must be a valid CEL identifier"))
	}
	if strings.TrimSpace(v.Expression) == "" {
		return append(errs, status.Required(p.Child("expression"), "expression is not specified"))
	}
	// As kube, a variable already stored is looked up among the stored
	// validations.
	return append(errs, o.check(Expression{Path: p.Child("expression"), Kind: VariableExpression, Expression: v.Expression,
		VariableName: v.Name, HasParams: hasParams, HasAuthorizer: true, Stored: o.stored[ValidationExpression][v.Expression]})...)
}

// validateValidation checks a validation's expression, message,
// messageExpression and reason.
func validateValidation(v *Validation, hasParams bool, o *checkOptions, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, status.Required(p.Child("expression"), "expression is not specified"))
	} else {
		errs = append(errs, o.check(Expression{Path: p.Child("expression"), Kind: ValidationExpression, Expression: v.Expression,
			HasParams: hasParams, HasAuthorizer: true, Stored: o.stored[ValidationExpression][v.Expression]})...)
	}
	if trimmed := strings.TrimSpace(v.MessageExpression); v.MessageExpression != "" && trimmed == "" {
		errs = append(errs, status.InvalidValue(p.Child("messageExpression"), v.MessageExpression, "must be non-empty if specified"))
	} else if trimmed != "" {
		errs = append(errs, o.check(Expression{Path: p.Child("messageExpression"), Kind: MessageExpression, Expression: v.MessageExpression,
			HasParams: o.allowParamsInMatchConditions, Stored: o.stored[MessageExpression][v.MessageExpression]})...)
	}
	if trimmed := strings.TrimSpace(v.Message); v.Message != "" && trimmed == "" {
		errs = append(errs, status.InvalidValue(p.Child("message"), v.Message, "must be non-empty if specified"))
	} else if newlines.MatchString(trimmed) {
		errs = append(errs, status.InvalidValue(p.Child("message"), v.Message, "must not contain line breaks"))
	}
	if v.Reason != nil && !slices.Contains(validationReasons, string(*v.Reason)) {
		errs = append(errs, status.NotSupported(p.Child("reason"), string(*v.Reason), validationReasons))
	}
	return errs
}

// validateAuditAnnotation checks that policy-name/key is a qualified name
// and that the value expression is there and not too long.
func validateAuditAnnotation(policy string, a *AuditAnnotation, hasParams bool, o *checkOptions, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if policy != "" {
		errs = append(errs, qualifiedNameErrors(p.Child("key"), policy+"/"+a.Key)...)
	} else {
		errs = append(errs, status.InvalidValue(p.Child("key"), a.Key, "requires metadata.name be non-empty"))
	}
	vp := p.Child("valueExpression")
	switch trimmed := strings.TrimSpace(a.ValueExpression); {
	case trimmed == "":
		errs = append(errs, status.Required(vp, "valueExpression is not specified"))
	case len(trimmed) > maxAuditAnnotationValueLen:
		errs = append(errs, status.Required(vp, fmt.Sprintf("must not exceed %d bytes in length", maxAuditAnnotationValueLen)))
	default:
		errs = append(errs, o.check(Expression{Path: vp, Kind: AuditAnnotationExpression, Expression: trimmed,
			HasParams: hasParams, HasAuthorizer: true, Stored: o.stored[AuditAnnotationExpression][a.ValueExpression]})...)
	}
	return errs
}

// validatePolicyStatus checks what the server's type checking writes:
// warnings on field references, and conditions.
func validatePolicyStatus(s *ValidatingAdmissionPolicyStatus) status.FieldErrors {
	var errs status.FieldErrors
	if s.TypeChecking != nil {
		for i, w := range s.TypeChecking.ExpressionWarnings {
			wp := status.NewPath("status", "typeChecking", "expressionWarnings").Index(i)
			if w.Warning == "" {
				errs = append(errs, status.Required(wp.Child("warning"), ""))
			}
			if strings.TrimSpace(w.FieldRef) == "" {
				errs = append(errs, status.Required(wp.Child("fieldRef"), ""))
			}
		}
	}
	return errs
}

// validateValidatingBinding checks a ValidatingAdmissionPolicyBinding's
// spec.
func validateValidatingBinding(s *ValidatingAdmissionPolicyBindingSpec) status.FieldErrors {
	p := status.NewPath("spec")
	errs := validateBindingHead(s.PolicyName, s.ParamRef, s.MatchResources, p)
	return append(errs, validateActions(s.ValidationActions, p.Child("validationActions"))...)
}

// validateMutatingBinding checks a MutatingAdmissionPolicyBinding's spec:
// its rules may not match DELETE.
func validateMutatingBinding(s *MutatingAdmissionPolicyBindingSpec) status.FieldErrors {
	p := status.NewPath("spec")
	errs := validateBindingHead(s.PolicyName, s.ParamRef, s.MatchResources, p)
	if s.MatchResources != nil {
		errs = append(errs, mutatingOperationErrors(s.MatchResources.ResourceRules, p.Child("matchResources").Child("resourceRules").Child("operations"))...)
	}
	return errs
}

// validateBindingHead checks a binding's policyName, paramRef and
// matchResources.
func validateBindingHead(policy string, ref *ParamRef, m *MatchResources, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if policy == "" {
		errs = append(errs, status.Required(p.Child("policyName"), ""))
	} else {
		for _, msg := range subdomainErrors(policy) {
			errs = append(errs, status.InvalidValue(p.Child("policyName"), policy, msg))
		}
	}
	errs = append(errs, validateParamRef(ref, p.Child("paramRef"))...)
	return append(errs, validateMatchResources(m, p.Child("matchResources"))...)
}

// validateParamRef requires exactly one of name and selector, and a
// parameterNotFoundAction.
func validateParamRef(r *ParamRef, p status.Path) status.FieldErrors {
	if r == nil {
		return nil
	}
	var errs status.FieldErrors
	const exclusive = "name and selector are mutually exclusive"
	if r.Name != "" {
		for _, msg := range pathSegmentErrors(r.Name) {
			errs = append(errs, status.InvalidValue(p.Child("name"), r.Name, msg))
		}
		if r.Selector != nil {
			errs = append(errs, status.ForbiddenField(p.Child("name"), exclusive))
		}
	}
	if r.Selector != nil {
		errs = append(errs, validateSelector(r.Selector, false, p.Child("selector"))...)
		if r.Name != "" {
			errs = append(errs, status.ForbiddenField(p.Child("selector"), exclusive))
		}
	}
	if r.Name == "" && r.Selector == nil {
		errs = append(errs, status.Required(p, "one of name or selector must be specified"))
	}
	if a := r.ParameterNotFoundAction; a == nil || *a == "" {
		errs = append(errs, status.Required(p.Child("parameterNotFoundAction"), ""))
	} else if !slices.Contains(paramNotFoundValues, string(*a)) {
		errs = append(errs, status.NotSupported(p.Child("parameterNotFoundAction"), string(*a), paramNotFoundValues))
	}
	return errs
}

// validateActions requires unique known actions, not both Deny and Warn.
func validateActions(actions []ValidationAction, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	seen := map[ValidationAction]bool{}
	for i, a := range actions {
		if !slices.Contains(validationActions, string(a)) {
			errs = append(errs, status.NotSupported(p.Index(i), string(a), validationActions))
		}
		if seen[a] {
			errs = append(errs, status.Duplicate(p.Index(i), string(a)))
		}
		seen[a] = true
	}
	if seen[Deny] && seen[Warn] {
		errs = append(errs, status.InvalidValue(p, actions,
			"must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		// kube's declarative validation reports this one, without
		// the words of the hand-written check it replaces.
		errs = append(errs, status.Required(p, ""))
	}
	return errs
}

// mutatingOperationErrors refuses DELETE in a mutating policy's or
// binding's rules; kube reports each on the same path, without index.
func mutatingOperationErrors(rules []NamedRuleWithOperations, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	for _, r := range rules {
		for _, op := range r.Operations {
			if !slices.Contains(mutatingOperations, string(op)) {
				errs = append(errs, status.NotSupported(p, string(op), mutatingOperations))
			}
		}
	}
	return errs
}
