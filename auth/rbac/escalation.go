package rbac

import (
	"context"
	"fmt"
	"strings"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Admit prevents privilege escalation through RBAC objects, as kube's
// RBAC storage does: a user may create or update a Role or ClusterRole
// only if they already hold every permission it grants (or may "escalate"
// roles), and a RoleBinding or ClusterRoleBinding only if they hold every
// permission of the role it refers to (or may "bind" that role). Members
// of system:masters may do both. Use it as validating admission.
func (a *Authorizer) Admit(ctx context.Context, req *apiserver.AdmissionRequest) error {
	if req.Resource.Group != Group || req.Operation == apiserver.OperationDelete || req.Object == nil {
		return nil
	}
	u := req.User
	if u == nil || u.InGroup(auth.SystemPrivilegedGroup) {
		return nil // no authentication: no one to hold permissions
	}
	switch o := req.Object.(type) {
	case *Role:
		return a.confirmRole(ctx, req, "roles", o.Namespace, o.Rules)
	case *ClusterRole:
		rules := o.Rules
		if o.AggregationRule != nil {
			// Aggregating grants whatever the selected roles grant: only
			// those who may grant everything may aggregate.
			rules = append(rules, PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
				PolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}})
		}
		return a.confirmRole(ctx, req, "clusterroles", "", rules)
	case *RoleBinding:
		return a.confirmBinding(ctx, req, o.RoleRef, o.Namespace)
	case *ClusterRoleBinding:
		return a.confirmBinding(ctx, req, o.RoleRef, "")
	}
	return nil
}

// confirmRole lets a role through if the user holds its rules or may
// escalate.
func (a *Authorizer) confirmRole(ctx context.Context, req *apiserver.AdmissionRequest, resource, namespace string, rules []PolicyRule) error {
	if a.may(ctx, req.User, "escalate", resource, namespace, req.Name) {
		return nil
	}
	return a.confirmHeld(ctx, req, namespace, rules)
}

// confirmBinding lets a binding through if the user may bind its role or
// holds the role's rules.
func (a *Authorizer) confirmBinding(ctx context.Context, req *apiserver.AdmissionRequest, ref RoleRef, namespace string) error {
	resource := "clusterroles"
	if ref.Kind == "Role" {
		resource = "roles"
	}
	if a.may(ctx, req.User, "bind", resource, namespace, ref.Name) {
		return nil
	}
	idx, err := a.synced(ctx)
	if err != nil {
		return status.InternalError(err)
	}
	rules, err := idx.roleRules(ref, namespace)
	if err != nil {
		return status.Forbidden(req.Resource, req.Name, err)
	}
	return a.confirmHeld(ctx, req, namespace, rules)
}

// may asks the authorizer whether u may do a special verb to a role.
func (a *Authorizer) may(ctx context.Context, u *auth.User, verb, resource, namespace, name string) bool {
	d, _, _ := a.Authorize(ctx, auth.Attributes{
		User: u, Verb: verb, ResourceRequest: true, APIGroup: Group, APIVersion: "v1",
		Resource: resource, Namespace: namespace, Name: name,
	})
	return d == auth.DecisionAllow
}

// confirmHeld fails with kube's escalation message unless the user holds
// every rule.
func (a *Authorizer) confirmHeld(ctx context.Context, req *apiserver.AdmissionRequest, namespace string, rules []PolicyRule) error {
	idx, err := a.synced(ctx)
	if err != nil {
		return status.InternalError(err)
	}
	owned, _ := idx.rulesFor(req.User, namespace)
	missing := uncovered(owned, rules)
	if len(missing) == 0 {
		return nil
	}
	var lines []string
	for _, r := range compactRules(missing) {
		lines = append(lines, compact(r))
	}
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
		req.User.Name, req.User.Groups, strings.Join(lines, "\n"))
	return status.Forbidden(meta.GroupResource{Group: Group, Resource: req.Resource.Resource}, req.Name, plainError(msg))
}

// compactRules merges single-verb rules that differ only in their verb.
func compactRules(units []PolicyRule) []PolicyRule {
	var out []PolicyRule
	pos := map[string]int{}
	for _, u := range units {
		key := fmt.Sprintf("%q|%q|%q|%q", u.APIGroups, u.Resources, u.ResourceNames, u.NonResourceURLs)
		if i, ok := pos[key]; ok {
			if !contains(out[i].Verbs, u.Verbs[0]) {
				out[i].Verbs = append(out[i].Verbs, u.Verbs[0])
			}
			continue
		}
		pos[key] = len(out)
		u.Verbs = append([]string(nil), u.Verbs...)
		out = append(out, u)
	}
	return out
}

type plainError string

func (e plainError) Error() string { return string(e) }
