package admissionregistrationv1

import (
	"reflect"
	"strings"

	"github.com/kapi-dev/kapi/status"
)

// validateMutatingPolicy checks a MutatingAdmissionPolicy; old is nil on
// create.
func validateMutatingPolicy(p, old *MutatingAdmissionPolicy, opts Options) status.FieldErrors {
	o := policyOptions(opts, false, false, nil)
	if old != nil {
		stored := map[ExpressionKind]map[string]bool{}
		for _, c := range old.Spec.MatchConditions {
			storedSet(stored, MatchConditionExpression, c.Expression)
		}
		for _, m := range old.Spec.Mutations {
			if m.ApplyConfiguration != nil {
				storedSet(stored, ApplyConfigurationExpression, m.ApplyConfiguration.Expression)
			}
			if m.JSONPatch != nil {
				storedSet(stored, JSONPatchExpression, m.JSONPatch.Expression)
			}
		}
		o = policyOptions(opts, reflect.DeepEqual(p.Spec.ParamKind, old.Spec.ParamKind),
			equalConditions(p.Spec.MatchConditions, old.Spec.MatchConditions), stored)
	}
	return validateMutatingPolicySpec(&p.Spec, o, status.NewPath("spec"))
}

func validateMutatingPolicySpec(s *MutatingAdmissionPolicySpec, o *checkOptions, p status.Path) status.FieldErrors {
	errs := validatePolicyHead(s.FailurePolicy, s.ParamKind, s.MatchConstraints, o, p)
	if s.MatchConstraints != nil {
		errs = append(errs, mutatingOperationErrors(s.MatchConstraints.ResourceRules, p.Child("matchConstraints").Child("resourceRules").Child("operations"))...)
	}
	if !o.ignoreMatchConditions {
		errs = append(errs, validateMatchConditions(s.MatchConditions, o, p.Child("matchConditions"))...)
	}
	hasParams := s.ParamKind != nil
	for i, v := range s.Variables {
		errs = append(errs, validateVariable(&v, hasParams, o, p.Child("variables").Index(i))...)
	}
	if len(s.Mutations) == 0 {
		errs = append(errs, status.Required(p.Child("mutations"), "mutations must contain at least one item"))
	}
	for i := range s.Mutations {
		errs = append(errs, validateMutation(&s.Mutations[i], hasParams, o, p.Child("mutations").Index(i))...)
	}
	if s.ReinvocationPolicy == "" {
		errs = append(errs, status.Required(p.Child("reinvocationPolicy"), ""))
	} else {
		errs = append(errs, enumErrors(p.Child("reinvocationPolicy"), &s.ReinvocationPolicy, reinvocationPolicies)...)
	}
	return errs
}

// validateMutation requires the patch type's own expression, and not the
// other's.
func validateMutation(m *Mutation, hasParams bool, o *checkOptions, p status.Path) status.FieldErrors {
	switch m.PatchType {
	case "":
		return status.FieldErrors{status.Required(p.Child("patchType"), "")}
	case PatchTypeJSONPatch:
		var errs status.FieldErrors
		if m.JSONPatch == nil {
			errs = append(errs, status.Required(p.Child("jsonPatch"), "must be specified when patchType is JSONPatch"))
		} else {
			// As kube, a stored JSON patch is looked up among the stored
			// apply configurations.
			errs = append(errs, mutationExpression(m.JSONPatch.Expression, JSONPatchExpression, ApplyConfigurationExpression, hasParams, o, p.Child("jsonPatch"))...)
		}
		if m.ApplyConfiguration != nil {
			errs = append(errs, status.InvalidValue(p.Child("applyConfiguration"), "{applyConfiguration}", "must not be specified when patchType is JSONPatch"))
		}
		return errs
	case PatchTypeApplyConfiguration:
		var errs status.FieldErrors
		if m.ApplyConfiguration == nil {
			errs = append(errs, status.Required(p.Child("applyConfiguration"), "must be specified when patchType is ApplyConfiguration"))
		} else {
			errs = append(errs, mutationExpression(m.ApplyConfiguration.Expression, ApplyConfigurationExpression, ApplyConfigurationExpression, hasParams, o, p.Child("applyConfiguration"))...)
		}
		if m.JSONPatch != nil {
			errs = append(errs, status.InvalidValue(p.Child("jsonPatch"), "{jsonPatch}", "must not be specified when patchType is ApplyConfiguration"))
		}
		return errs
	}
	return status.FieldErrors{status.NotSupported(p.Child("patchType"), string(m.PatchType), patchTypes)}
}

func mutationExpression(expr string, kind, storedAs ExpressionKind, hasParams bool, o *checkOptions, p status.Path) status.FieldErrors {
	trimmed := strings.TrimSpace(expr)
	if trimmed == "" {
		return status.FieldErrors{status.Required(p.Child("expression"), "")}
	}
	return o.check(Expression{Path: p.Child("expression"), Kind: kind, Expression: trimmed,
		HasParams: hasParams, HasAuthorizer: true, Stored: o.stored[storedAs][expr]})
}
