package admission

import (
	"context"

	kadm "github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/apiserver/admission/match"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
)

// MatchFunc reports whether request a matches mr, and the version of
// the request's kind the matching rule named ("" for the request's
// own). nsLabels gives a namespace's labels for namespaceSelector.
type MatchFunc func(ctx context.Context, a *kadm.Request, mr *arv1.MatchResources, nsLabels func(ctx context.Context, name string) (map[string]string, bool, error)) (bool, string, error)

// matchResources matches a request against a policy's matchConstraints
// or a binding's matchResources with the core's matcher, as kube's
// policy matcher does: resource rules (none: every resource),
// exclusions, namespace and object selectors, and matchPolicy
// Equivalent, which names another served version of the request's kind
// to show the object in.
func matchResources(ctx context.Context, a *kadm.Request, mr *arv1.MatchResources,
	nsLabels func(context.Context, string) (map[string]string, bool, error)) (bool, string, error) {
	if mr == nil {
		return true, "", nil
	}
	ns, err := match.SelectorOf(mr.NamespaceSelector)
	if err != nil {
		return false, "", err
	}
	obj, err := match.SelectorOf(mr.ObjectSelector)
	if err != nil {
		return false, "", err
	}
	res, err := match.Match(ctx, a, &match.Criteria{
		ResourceRules: mr.ResourceRules, ExcludeRules: mr.ExcludeResourceRules,
		NamespaceSelector: ns, ObjectSelector: obj, MatchPolicy: mr.MatchPolicy,
	}, nsLabels)
	if err != nil || !res.Matched || res.Version == a.Kind.Version {
		return res.Matched, "", err
	}
	return true, res.Version, nil
}
