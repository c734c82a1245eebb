package admission

import (
	"context"
	"strings"

	kadm "github.com/kapi-dev/kapi/apiserver/admission"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
)

// MatchFunc reports whether request a matches mr, and the version of
// the request's kind the matching rule named ("" for the request's
// own). nsLabels gives a namespace's labels for namespaceSelector.
type MatchFunc func(ctx context.Context, a *kadm.Request, mr *arv1.MatchResources, nsLabels func(ctx context.Context, name string) (map[string]string, bool, error)) (bool, string, error)

// matchRules is the plugin's own matcher until the shared one of
// apiserver/admission/match is there: resourceRules (operations,
// groups, versions, resources with their "*" and subresource forms,
// resourceNames, scope) less excludeResourceRules, namespaceSelector
// and objectSelector, for the request's own version.
func matchRules(ctx context.Context, a *kadm.Request, mr *arv1.MatchResources, nsLabels func(context.Context, string) (map[string]string, bool, error)) (bool, string, error) {
	if mr == nil {
		return true, "", nil
	}
	// A binding's matchResources without resourceRules matches every
	// resource its policy does, as kube's matcher has it.
	if len(mr.ResourceRules) > 0 && !anyRule(a, mr.ResourceRules) || anyRule(a, mr.ExcludeResourceRules) {
		return false, "", nil
	}
	if !objectSelected(a, mr.ObjectSelector) {
		return false, "", nil
	}
	if mr.NamespaceSelector == nil || a.Namespace == "" || a.Namespace == a.Name && a.Resource.Resource == "namespaces" && a.Resource.Group == "" {
		return true, "", nil
	}
	labels, _, err := nsLabels(ctx, a.Namespace)
	if err != nil {
		return false, "", err
	}
	ok, err := mr.NamespaceSelector.Matches(labels)
	return ok, "", err
}

func objectSelected(a *kadm.Request, sel *arv1.LabelSelector) bool {
	if sel == nil {
		return true
	}
	for _, o := range []meta.Object{a.Object, a.OldObject} {
		if o == nil {
			continue
		}
		if ok, _ := sel.Matches(o.GetObjectMeta().Labels); ok {
			return true
		}
	}
	return false
}

func anyRule(a *kadm.Request, rules []arv1.NamedRuleWithOperations) bool {
	for _, r := range rules {
		if ruleMatches(a, r) {
			return true
		}
	}
	return false
}

func ruleMatches(a *kadm.Request, r arv1.NamedRuleWithOperations) bool {
	if !anyOf(opStrings(r.Operations), string(a.Operation)) || !anyOf(r.APIGroups, a.Kind.Group) ||
		!anyOf(r.APIVersions, a.Kind.Version) || !resourceMatches(r.Resources, a.Resource.Resource, a.Subresource) {
		return false
	}
	if len(r.ResourceNames) > 0 && !anyOf(r.ResourceNames, a.Name) {
		return false
	}
	if r.Scope != nil {
		switch *r.Scope {
		case arv1.ClusterScope:
			return a.Namespace == ""
		case arv1.NamespacedScope:
			return a.Namespace != ""
		}
	}
	return true
}

func opStrings(ops []arv1.OperationType) []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = string(o)
	}
	return out
}

func anyOf(list []string, v string) bool {
	for _, x := range list {
		if x == "*" || x == v {
			return true
		}
	}
	return false
}

func resourceMatches(list []string, res, sub string) bool {
	for _, x := range list {
		r, s, hasSub := strings.Cut(x, "/")
		switch {
		case x == "*":
			if sub == "" {
				return true
			}
		case hasSub:
			if (r == "*" || r == res) && (s == "*" || s == sub) {
				return true
			}
		case r == res && sub == "":
			return true
		}
	}
	return false
}
