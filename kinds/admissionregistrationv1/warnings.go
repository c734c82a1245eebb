package admissionregistrationv1

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/status"
)

// staticSuffix ends the names kube-apiserver keeps for admission
// configurations loaded from manifests at start; the API refuses to
// create such a name, and warns on updates of one created before.
const staticSuffix = ".static.k8s.io"

// staticSuffixMessage is kube's complaint about a name ending in
// staticSuffix.
var staticSuffixMessage = fmt.Sprintf("names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", staticSuffix)

// staticSuffixErrors refuses a new object named with staticSuffix.
func staticSuffixErrors(name string) status.FieldErrors {
	if !strings.HasSuffix(name, staticSuffix) {
		return nil
	}
	return status.FieldErrors{status.InvalidValue(status.NewPath("metadata", "name"), name, staticSuffixMessage)}
}

// warnStaticSuffix warns an update of an object named with staticSuffix.
func warnStaticSuffix(ctx context.Context, name string) {
	if strings.HasSuffix(name, staticSuffix) {
		admission.Warn(ctx, "metadata.name: "+staticSuffixMessage)
	}
}

// groupResource is an API group and resource.
type groupResource struct{ group, resource string }

// excludedResources are the resources that are never sent to admission
// webhooks (reviews answered without storing anything); a rule naming one
// draws a warning.
var excludedResources = []groupResource{
	{"authentication.k8s.io", "selfsubjectreviews"},
	{"authentication.k8s.io", "tokenreviews"},
	{"authorization.k8s.io", "localsubjectaccessreviews"},
	{"authorization.k8s.io", "selfsubjectaccessreviews"},
	{"authorization.k8s.io", "selfsubjectrulesreviews"},
	{"authorization.k8s.io", "subjectaccessreviews"},
}

func mutatingRules(hooks []MutatingWebhook) [][]RuleWithOperations {
	out := make([][]RuleWithOperations, len(hooks))
	for i := range hooks {
		out[i] = hooks[i].Rules
	}
	return out
}

func validatingRules(hooks []ValidatingWebhook) [][]RuleWithOperations {
	out := make([][]RuleWithOperations, len(hooks))
	for i := range hooks {
		out[i] = hooks[i].Rules
	}
	return out
}

// warnExcludedRules warns, for each webhook's rules, of every excluded
// resource a rule names explicitly (rules with a "*" group or resource
// are left alone: what they mean for those resources is not clear).
func warnExcludedRules(ctx context.Context, rulesByHook [][]RuleWithOperations) {
	for i, rules := range rulesByHook {
		for j, r := range rules {
			for _, gr := range excludedNamedBy(r.APIGroups, r.Resources) {
				admission.Warn(ctx, fmt.Sprintf("%s: %s is excluded from admission webhooks; this rule will have no effect",
					status.NewPath("webhooks").Index(i).Child("rules").Index(j), gr))
			}
		}
	}
}

// excludedNamedBy returns the excluded resources a rule names, once each,
// in the rule's order, as "resource.group".
func excludedNamedBy(groups, resources []string) []string {
	if slices.Contains(groups, "*") || slices.Contains(resources, "*") {
		return nil
	}
	var out []string
	for _, g := range groups {
		for _, r := range resources {
			s := r + "." + g
			if slices.Contains(excludedResources, groupResource{g, r}) && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}
