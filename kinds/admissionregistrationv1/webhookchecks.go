package admissionregistrationv1

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/kinds/internal/webhookcheck"
	"github.com/kapi-dev/kapi/status"
)

// checkOptions are what kube-apiserver relaxes on update for objects
// stored before a rule was added, and the CEL check.
type checkOptions struct {
	expression                   func(Expression) *status.FieldError
	ignoreMatchConditions        bool
	allowParamsInMatchConditions bool
	requireNoSideEffects         bool
	requireKnownReviewVersion    bool
	requireUniqueNames           bool
	allowBadSelectorValues       bool
	// stored are the expressions of the object being updated, by kind.
	stored map[ExpressionKind]map[string]bool
}

// check runs the CEL check on one expression, when there is one.
func (o *checkOptions) check(e Expression) status.FieldErrors {
	if o.expression == nil {
		return nil
	}
	if err := o.expression(e); err != nil {
		return status.FieldErrors{err}
	}
	return nil
}

// createOptions hold every rule.
func createOptions(opts Options) *checkOptions {
	return &checkOptions{expression: opts.CheckExpression, requireNoSideEffects: true,
		requireKnownReviewVersion: true, requireUniqueNames: true}
}

// webhook is what the checks read of a mutating or validating webhook.
type webhook struct {
	name               string
	clientConfig       WebhookClientConfig
	rules              []RuleWithOperations
	failurePolicy      *FailurePolicyType
	matchPolicy        *MatchPolicyType
	namespaceSelector  *LabelSelector
	objectSelector     *LabelSelector
	sideEffects        *SideEffectClass
	timeoutSeconds     *int32
	reviewVersions     []string
	reinvocationPolicy *ReinvocationPolicyType
	mutating           bool
	matchConditions    []MatchCondition
}

func fromMutating(hooks []MutatingWebhook) []webhook {
	out := make([]webhook, len(hooks))
	for i, h := range hooks {
		out[i] = webhook{h.Name, h.ClientConfig, h.Rules, h.FailurePolicy, h.MatchPolicy, h.NamespaceSelector, h.ObjectSelector,
			h.SideEffects, h.TimeoutSeconds, h.AdmissionReviewVersions, h.ReinvocationPolicy, true, h.MatchConditions}
	}
	return out
}

func fromValidating(hooks []ValidatingWebhook) []webhook {
	out := make([]webhook, len(hooks))
	for i, h := range hooks {
		out[i] = webhook{h.Name, h.ClientConfig, h.Rules, h.FailurePolicy, h.MatchPolicy, h.NamespaceSelector, h.ObjectSelector,
			h.SideEffects, h.TimeoutSeconds, h.AdmissionReviewVersions, nil, false, h.MatchConditions}
	}
	return out
}

func validateMutatingWebhooks(hooks []MutatingWebhook, o *checkOptions) status.FieldErrors {
	return validateWebhooks(fromMutating(hooks), o)
}

func validateValidatingWebhooks(hooks []ValidatingWebhook, o *checkOptions) status.FieldErrors {
	return validateWebhooks(fromValidating(hooks), o)
}

func mutatingUpdateOptions(opts Options, old, cur []MutatingWebhook) *checkOptions {
	return updateOptions(opts, fromMutating(old), fromMutating(cur))
}

func validatingUpdateOptions(opts Options, old, cur []ValidatingWebhook) *checkOptions {
	return updateOptions(opts, fromValidating(old), fromValidating(cur))
}

// updateOptions keep on update what the stored webhooks already break:
// side effects, review versions, duplicate names and selector values may
// stay as bad as they were, and unchanged match conditions are not
// checked again.
func updateOptions(opts Options, old, cur []webhook) *checkOptions {
	o := &checkOptions{expression: opts.CheckExpression, requireNoSideEffects: true,
		requireKnownReviewVersion: true, requireUniqueNames: true,
		stored: map[ExpressionKind]map[string]bool{MatchConditionExpression: {}}}
	o.ignoreMatchConditions = len(old) == len(cur)
	names := map[string]bool{}
	for i, h := range old {
		if o.ignoreMatchConditions && !reflect.DeepEqual(h.matchConditions, cur[i].matchConditions) {
			o.ignoreMatchConditions = false
		}
		if h.sideEffects == nil || !slices.Contains(noSideEffectClasses, string(*h.sideEffects)) {
			o.requireNoSideEffects = false
		}
		if len(h.reviewVersions) > 0 && !slices.ContainsFunc(h.reviewVersions, isKnownReviewVersion) {
			o.requireKnownReviewVersion = false
		}
		if names[h.name] {
			o.requireUniqueNames = false
		}
		names[h.name] = true
		if selectorHasBadValues(h.namespaceSelector) || selectorHasBadValues(h.objectSelector) {
			o.allowBadSelectorValues = true
		}
		for _, c := range h.matchConditions {
			o.stored[MatchConditionExpression][c.Expression] = true
		}
	}
	return o
}

// validateWebhooks checks each webhook, its review versions, and that
// names are unique.
func validateWebhooks(hooks []webhook, o *checkOptions) status.FieldErrors {
	var errs status.FieldErrors
	names := map[string]bool{}
	for i := range hooks {
		p := status.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(&hooks[i], o, p)...)
		errs = append(errs, validateReviewVersions(hooks[i].reviewVersions, o.requireKnownReviewVersion, p.Child("admissionReviewVersions"))...)
		if name := hooks[i].name; o.requireUniqueNames && name != "" {
			if names[name] {
				errs = append(errs, status.Duplicate(p.Child("name"), name))
			}
			names[name] = true
		}
	}
	return errs
}

var (
	failurePolicies       = []string{"Fail", "Ignore"}
	matchPolicies         = []string{"Equivalent", "Exact"}
	noSideEffectClasses   = []string{"None", "NoneOnDryRun"}
	allSideEffectClasses  = []string{"None", "NoneOnDryRun", "Some", "Unknown"}
	reinvocationPolicies  = []string{"IfNeeded", "Never"}
	knownReviewVersions   = []string{"v1", "v1beta1"}
	knownReviewVersionsOr = strings.Join(knownReviewVersions, ", ")
)

func isKnownReviewVersion(v string) bool { return slices.Contains(knownReviewVersions, v) }

// validateWebhook checks one webhook, field by field in kube's order.
func validateWebhook(h *webhook, o *checkOptions, p status.Path) status.FieldErrors {
	errs := fullyQualifiedNameErrors(p.Child("name"), h.name)
	for i := range h.rules {
		errs = append(errs, validateRuleWithOperations(&h.rules[i], p.Child("rules").Index(i))...)
	}
	errs = append(errs, enumErrors(p.Child("failurePolicy"), h.failurePolicy, failurePolicies)...)
	errs = append(errs, enumErrors(p.Child("matchPolicy"), h.matchPolicy, matchPolicies)...)
	sideEffects := allSideEffectClasses
	if o.requireNoSideEffects {
		sideEffects = noSideEffectClasses
	}
	if h.sideEffects == nil {
		errs = append(errs, status.Required(p.Child("sideEffects"), "must specify one of "+strings.Join(sideEffects, ", ")))
	}
	errs = append(errs, enumErrors(p.Child("sideEffects"), h.sideEffects, sideEffects)...)
	if t := h.timeoutSeconds; t != nil && (*t > 30 || *t < 1) {
		errs = append(errs, status.InvalidValue(p.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"))
	}
	errs = append(errs, validateSelector(h.namespaceSelector, o.allowBadSelectorValues, p.Child("namespaceSelector"))...)
	errs = append(errs, validateSelector(h.objectSelector, o.allowBadSelectorValues, p.Child("objectSelector"))...)
	if h.mutating {
		errs = append(errs, enumErrors(p.Child("reinvocationPolicy"), h.reinvocationPolicy, reinvocationPolicies)...)
	}
	errs = append(errs, validateClientConfig(&h.clientConfig, p.Child("clientConfig"))...)
	if !o.ignoreMatchConditions {
		errs = append(errs, validateMatchConditions(h.matchConditions, o, p.Child("matchConditions"))...)
	}
	return errs
}

// enumErrors refuses a set value outside valid.
func enumErrors[T ~string](p status.Path, v *T, valid []string) status.FieldErrors {
	if v == nil || slices.Contains(valid, string(*v)) {
		return nil
	}
	return status.FieldErrors{status.NotSupported(p, string(*v), valid)}
}

// validateReviewVersions checks the AdmissionReview versions a webhook
// accepts: DNS-1035 labels, unique, one of them known.
func validateReviewVersions(versions []string, requireKnown bool, p status.Path) status.FieldErrors {
	if len(versions) == 0 {
		return status.FieldErrors{status.Required(p, "must specify one of "+knownReviewVersionsOr)}
	}
	var errs status.FieldErrors
	seen := map[string]bool{}
	known := false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, status.InvalidValue(p.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, msg := range dns1035Errors(v) {
			errs = append(errs, status.InvalidValue(p.Index(i), v, msg))
		}
		known = known || isKnownReviewVersion(v)
	}
	if requireKnown && !known {
		errs = append(errs, status.InvalidValue(p, versions, "must include at least one of "+knownReviewVersionsOr))
	}
	return errs
}

// validateClientConfig requires exactly one of url and service.
func validateClientConfig(cc *WebhookClientConfig, p status.Path) status.FieldErrors {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return status.FieldErrors{status.Required(p, "exactly one of url or service is required")}
	case cc.URL != nil:
		return webhookcheck.URLErrors(*cc.URL, p.Child("url"))
	default:
		return validateService(cc.Service, p.Child("service"))
	}
}

// validateService requires a name and namespace, a valid port and a path
// of DNS-subdomain segments.
func validateService(s *ServiceReference, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if s.Name == "" {
		errs = append(errs, status.Required(p.Child("name"), ""))
	}
	if s.Namespace == "" {
		errs = append(errs, status.Required(p.Child("namespace"), ""))
	}
	port := int32(0)
	if s.Port != nil {
		port = *s.Port
	}
	if port < 1 || port > 65535 {
		errs = append(errs, status.InvalidValue(p.Child("port"), port, "port is not valid: must be between 1 and 65535, inclusive"))
	}
	if s.Path == nil {
		return errs
	}
	return append(errs, validateServicePath(*s.Path, p.Child("path"))...)
}

func validateServicePath(path string, p status.Path) status.FieldErrors {
	if path == "/" || path == "" {
		return nil
	}
	if path == "//" {
		return status.FieldErrors{status.InvalidValue(p, path, "segment[0] may not be empty")}
	}
	var errs status.FieldErrors
	if !strings.HasPrefix(path, "/") {
		errs = append(errs, status.InvalidValue(p, path, "must start with a '/'"))
	}
	rest := strings.TrimSuffix(path[1:], "/")
	for i, seg := range strings.Split(rest, "/") {
		if seg == "" {
			errs = append(errs, status.InvalidValue(p, path, fmt.Sprintf("segment[%d] may not be empty", i)))
			continue
		}
		for _, msg := range subdomainErrors(seg) {
			errs = append(errs, status.InvalidValue(p, path, fmt.Sprintf("segment[%d]: %v", i, msg)))
		}
	}
	return errs
}
