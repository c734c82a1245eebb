// Package match decides which admission webhooks and policies a write is
// shown to, as kube-apiserver's generic admission matcher does: rules
// (operations, API groups, versions, resources and subresources, scope),
// resource names and exclusions of policies, the namespace and object
// label selectors, and matchPolicy, which lets a rule written for one
// version of a kind match a request made in another.
//
// It also holds the contract of CEL matchConditions ([ConditionCompiler],
// [Conditions], [ConditionInput]): the core module knows no CEL, so the
// cel module implements it.
package match

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// NamespaceLabels returns the labels of namespace name (found false when
// it does not exist).
type NamespaceLabels func(ctx context.Context, name string) (labels map[string]string, found bool, err error)

// Criteria is what webhooks and policies match requests by.
type Criteria struct {
	// Rules are a webhook's rules. A webhook without rules matches
	// nothing: its caller should not ask.
	Rules []admissionregistrationv1.RuleWithOperations
	// ResourceRules are a policy's matchConstraints.resourceRules (or a
	// binding's matchResources.resourceRules). When neither Rules nor
	// ResourceRules is given every resource matches, as kube matches a
	// binding whose matchResources name no rules.
	ResourceRules []admissionregistrationv1.NamedRuleWithOperations
	// ExcludeRules are a policy's excludeResourceRules: a request one of
	// them matches matches nothing.
	ExcludeRules []admissionregistrationv1.NamedRuleWithOperations
	// NamespaceSelector selects by the labels of the request's namespace
	// (of the namespace itself, for namespaces); nil: everything.
	NamespaceSelector *meta.LabelSelector
	// ObjectSelector selects by the labels of the object or, failing
	// that, the old object; nil: everything.
	ObjectSelector *meta.LabelSelector
	// MatchPolicy is Exact or Equivalent; nil: Equivalent, the default
	// kube gives both webhooks and policies in v1.
	MatchPolicy *admissionregistrationv1.MatchPolicyType
}

// Result is how a request matched.
type Result struct {
	Matched bool
	// Version is the version of the request's kind the matching rule
	// named: the request's own, or (matchPolicy Equivalent) another
	// served version the object must be converted to
	// (admission.Request.Versions) before it is shown to the webhook or
	// policy.
	Version string
	// Resource is the request's resource in Version.
	Resource meta.GroupVersionResource
	// Kind is the request's kind in Version.
	Kind meta.GroupVersionKind
	// Subresource is the request's subresource ("" for none).
	Subresource string
}

// Match reports whether a matches c, as kube-apiserver's generic
// admission matcher does. Selectors are looked at first, but an error in
// finding the namespace's labels is only returned when a rule matches
// (a 404 Status when the namespace does not exist, as kube answers).
func Match(ctx context.Context, a *admission.Request, c *Criteria, nsLabels NamespaceLabels) (Result, error) {
	nsMatched, nsErr := matchNamespace(ctx, a, c.NamespaceSelector, nsLabels)
	if !nsMatched && nsErr == nil {
		return Result{}, nil
	}
	if !matchObject(a, c.ObjectSelector) {
		return Result{}, nil
	}
	equivalent := c.MatchPolicy == nil || *c.MatchPolicy == admissionregistrationv1.Equivalent
	t := newTarget(a)
	if len(c.ExcludeRules) > 0 {
		if _, excluded := t.matchNamed(c.ExcludeRules, equivalent); excluded {
			return Result{}, nil
		}
	}
	version, matched := t.version, true
	if len(c.Rules) > 0 || len(c.ResourceRules) > 0 {
		version, matched = t.matchAll(c, equivalent)
	}
	if !matched {
		return Result{}, nil
	}
	if nsErr != nil {
		return Result{}, nsErr
	}
	return t.result(version), nil
}

// target is the request as rules see it: its group, version, resource,
// subresource, operation, scope and name.
type target struct {
	a        *admission.Request
	version  string
	served   []string
	resource meta.GroupVersionResource
}

func newTarget(a *admission.Request) *target {
	t := &target{a: a, version: a.Kind.Version}
	t.resource = meta.GroupVersionResource{Group: a.Resource.Group, Version: t.version, Resource: a.Resource.Resource}
	if a.Versions != nil {
		t.served = a.Versions.Served()
	}
	return t
}

func (t *target) result(version string) Result {
	gvr, gvk := t.resource, t.a.Kind
	gvr.Version, gvk.Version = version, version
	return Result{Matched: true, Version: version, Resource: gvr, Kind: gvk, Subresource: t.a.Subresource}
}

// matchAll tries the webhook rules, then the policy rules, first in the
// request's version, then (Equivalent) in the kind's other served
// versions, rule by rule, as kube does.
func (t *target) matchAll(c *Criteria, equivalent bool) (string, bool) {
	named := c.ResourceRules
	if len(c.Rules) > 0 {
		named = make([]admissionregistrationv1.NamedRuleWithOperations, 0, len(c.Rules)+len(c.ResourceRules))
		for _, r := range c.Rules {
			named = append(named, admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: r})
		}
		named = append(named, c.ResourceRules...)
	}
	return t.matchNamed(named, equivalent)
}

// matchNamed returns the version in which one of rules matches.
func (t *target) matchNamed(rules []admissionregistrationv1.NamedRuleWithOperations, equivalent bool) (string, bool) {
	for i := range rules {
		if t.matchesRule(&rules[i], t.version) {
			return t.version, true
		}
	}
	if !equivalent {
		return "", false
	}
	for i := range rules {
		for _, v := range t.served {
			if v != t.version && t.matchesRule(&rules[i], v) {
				return v, true
			}
		}
	}
	return "", false
}

// matchesRule reports whether r matches the request with its resource
// in version.
func (t *target) matchesRule(r *admissionregistrationv1.NamedRuleWithOperations, version string) bool {
	a := t.a
	return matchScope(r.Scope, t.resource, a.Namespace) &&
		matchOperation(r.Operations, a.Operation) &&
		exactOrWildcard(r.APIGroups, t.resource.Group) &&
		exactOrWildcard(r.APIVersions, version) &&
		matchResource(r.Resources, t.resource.Resource, a.Subresource) &&
		(len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, a.Name))
}

func exactOrWildcard(items []string, want string) bool {
	for _, it := range items {
		if it == "*" || it == want {
			return true
		}
	}
	return false
}

func matchOperation(ops []admissionregistrationv1.OperationType, op admission.Operation) bool {
	for _, o := range ops {
		if o == admissionregistrationv1.OperationAll || string(o) == string(op) {
			return true
		}
	}
	return false
}

// isNamespaces reports whether gvr is the core namespaces resource, which
// kube counts as cluster-scoped and selects by its own labels.
func isNamespaces(gvr meta.GroupVersionResource) bool {
	return gvr.Group == "" && gvr.Version == "v1" && gvr.Resource == "namespaces"
}

func matchScope(scope *admissionregistrationv1.ScopeType, gvr meta.GroupVersionResource, namespace string) bool {
	if scope == nil {
		return true
	}
	switch *scope {
	case admissionregistrationv1.AllScopes:
		return true
	case admissionregistrationv1.NamespacedScope:
		return !isNamespaces(gvr) && namespace != ""
	case admissionregistrationv1.ClusterScope:
		return isNamespaces(gvr) || namespace == ""
	}
	return false
}

// matchResource matches "resource", "resource/subresource", "*",
// "*/subresource", "resource/*" and "*/*" against the request.
func matchResource(resources []string, resource, subresource string) bool {
	for _, r := range resources {
		res, sub, _ := strings.Cut(r, "/")
		if (res == "*" || res == resource) && (sub == "*" || sub == subresource) {
			return true
		}
	}
	return false
}

// matchObject matches the labels of the object, or else of the old one;
// a request without either matches only an empty selector.
func matchObject(a *admission.Request, sel *meta.LabelSelector) bool {
	if sel == nil || sel.Empty() {
		return true
	}
	for _, o := range []meta.Object{a.Object, a.OldObject} {
		if o != nil && sel.Matches(o.GetObjectMeta().Labels) {
			return true
		}
	}
	return false
}

// matchNamespace matches the labels of the request's namespace. Requests
// for cluster-scoped objects other than namespaces always match; a
// namespace being created or updated is selected by its own new labels,
// as kube does.
func matchNamespace(ctx context.Context, a *admission.Request, sel *meta.LabelSelector, nsLabels NamespaceLabels) (bool, error) {
	isNS := a.Resource.Resource == "namespaces"
	ns := a.Namespace
	if isNS && ns == "" {
		ns = a.Name // kube names a namespace's own requests after it
	}
	if ns == "" && !isNS {
		return true, nil
	}
	if sel == nil || sel.Empty() {
		return true, nil
	}
	if isNS && a.Subresource == "" && (a.Operation == admission.Create || a.Operation == admission.Update) && a.Object != nil {
		return sel.Matches(a.Object.GetObjectMeta().Labels), nil
	}
	if nsLabels == nil {
		return false, status.InternalError(fmt.Errorf("no namespace lister to match %q by its labels", ns))
	}
	labels, found, err := nsLabels(ctx, ns)
	if err != nil {
		if status.IsNotFound(err) {
			return false, err
		}
		return false, status.InternalError(err)
	}
	if !found {
		return false, status.NotFound(meta.GroupResource{Resource: "namespaces"}, ns)
	}
	return sel.Matches(labels), nil
}

// ConditionCompiler compiles CEL matchConditions; implemented in the cel
// module (package github.com/kapi-dev/kapi/cel/admission).
type ConditionCompiler interface {
	CompileConditions(conds []admissionregistrationv1.MatchCondition) (Conditions, error)
}

// Conditions evaluates compiled matchConditions: matched is true when
// every condition is true; a false one gives matched=false with its name
// in failed; an evaluation error is err (the caller applies
// failurePolicy as kube does).
type Conditions interface {
	Match(ctx context.Context, in *ConditionInput) (matched bool, failed string, err error)
}

// ConditionInput holds CEL's variables for a request: object and
// oldObject as JSON forms (map[string]any, nil when absent) in the
// version shown to the webhook/policy; request, the AdmissionRequest (v1)
// as its JSON form; the user and an authorizer for `authorizer` and
// `authorizer.requestResource`.
type ConditionInput struct {
	Object, OldObject map[string]any
	Request           map[string]any
	User              *auth.User
	Authorizer        auth.Authorizer
	Resource          meta.GroupVersionResource
	Subresource       string
	Namespace         string
	Name              string
}
