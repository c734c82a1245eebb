package rbac

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
)

// Authorizer evaluates requests against the Roles, ClusterRoles and
// bindings a server stores, from an index it builds from the server's
// watch caches and rebuilds only when they change: no store round trip
// per request. Build it with [New], pass it to apiserver.Options (as the
// Authorizer, and its [Authorizer.Admit] as validating admission), then
// [Authorizer.Register] the RBAC kinds on the server.
type Authorizer struct {
	readers atomic.Pointer[[4]apiserver.Cached]

	mu  sync.Mutex // serializes rebuilds
	idx atomic.Pointer[index]
}

var (
	_ auth.Authorizer   = (*Authorizer)(nil)
	_ auth.RuleResolver = (*Authorizer)(nil)
)

// New returns an Authorizer that has no opinion until it is registered.
func New() *Authorizer { return &Authorizer{} }

// resources are the four kinds, in the order of the readers.
var resources = [4]string{"clusterroles", "roles", "clusterrolebindings", "rolebindings"}

// Register registers the rbac.authorization.k8s.io/v1 kinds on srv and
// evaluates requests against what srv stores from then on.
func (a *Authorizer) Register(srv *apiserver.Server) error {
	srv.Register(ClusterRoleKind()).Register(RoleKind()).Register(ClusterRoleBindingKind()).Register(RoleBindingKind())
	if err := srv.Err(); err != nil {
		return err
	}
	var rs [4]apiserver.Cached
	for i, res := range resources {
		c, ok := srv.Cached(Group, res)
		if !ok {
			return fmt.Errorf("rbac: %s is not registered", res)
		}
		rs[i] = c
	}
	a.readers.Store(&rs)
	return nil
}

// index is the evaluated form of the stored RBAC objects at some
// revisions of the caches.
type index struct {
	revs                [4]int64
	clusterRoles        map[string][]PolicyRule // by name, aggregation applied
	roles               map[string][]PolicyRule // by namespace/name
	clusterRoleBindings []*ClusterRoleBinding
	roleBindings        map[string][]*RoleBinding // by namespace
}

// current returns the index, rebuilt first if the caches moved on.
func (a *Authorizer) current(ctx context.Context) (*index, error) {
	rs := a.readers.Load()
	if rs == nil {
		return nil, errors.New("RBAC kinds are not registered")
	}
	var revs [4]int64
	for i, r := range rs {
		revs[i] = r.Revision()
	}
	if idx := a.idx.Load(); idx != nil && idx.revs == revs && revs[0] != 0 {
		return idx, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if idx := a.idx.Load(); idx != nil && idx.revs == revs && revs[0] != 0 {
		return idx, nil
	}
	idx, err := build(ctx, rs)
	if err != nil {
		return nil, err
	}
	a.idx.Store(idx)
	return idx, nil
}

// build reads the four kinds and indexes them.
func build(ctx context.Context, rs *[4]apiserver.Cached) (*index, error) {
	var lists [4][]meta.Object
	idx := &index{roles: map[string][]PolicyRule{}, roleBindings: map[string][]*RoleBinding{}}
	for i, r := range rs {
		objs, rev, err := r.List(ctx)
		if err != nil {
			return nil, err
		}
		lists[i], idx.revs[i] = objs, rev
	}
	var crs []*ClusterRole
	for _, o := range lists[0] {
		crs = append(crs, o.(*ClusterRole))
	}
	idx.clusterRoles = aggregate(crs)
	for _, o := range lists[1] {
		r := o.(*Role)
		idx.roles[r.Namespace+"/"+r.Name] = r.Rules
	}
	for _, o := range lists[2] {
		idx.clusterRoleBindings = append(idx.clusterRoleBindings, o.(*ClusterRoleBinding))
	}
	for _, o := range lists[3] {
		b := o.(*RoleBinding)
		idx.roleBindings[b.Namespace] = append(idx.roleBindings[b.Namespace], b)
	}
	return idx, nil
}

// aggregate returns each ClusterRole's rules, with those of the roles its
// aggregation rule selects (followed transitively) added to its own.
func aggregate(crs []*ClusterRole) map[string][]PolicyRule {
	out := make(map[string][]PolicyRule, len(crs))
	var resolve func(cr *ClusterRole, seen map[string]bool) []PolicyRule
	resolve = func(cr *ClusterRole, seen map[string]bool) []PolicyRule {
		rules := append([]PolicyRule(nil), cr.Rules...)
		if cr.AggregationRule == nil || seen[cr.Name] {
			return rules
		}
		seen[cr.Name] = true
		for _, other := range crs {
			if other.Name == cr.Name || seen[other.Name] {
				continue
			}
			for _, sel := range cr.AggregationRule.ClusterRoleSelectors {
				if sel.Matches(other.Labels) {
					rules = append(rules, resolve(other, seen)...)
					break
				}
			}
		}
		return rules
	}
	for _, cr := range crs {
		out[cr.Name] = resolve(cr, map[string]bool{})
	}
	return out
}

// Authorize allows a request that a rule of a role bound to the user
// allows, and has no opinion on any other: RBAC never denies. The reason
// of no opinion names the roles that bindings refer to but that do not
// exist, as kube's does.
//
// A request the index does not allow is evaluated again once the caches
// have caught up with the store, so that a binding just written is in
// force for the next request; allowed requests never wait.
func (a *Authorizer) Authorize(ctx context.Context, attrs auth.Attributes) (auth.Decision, string, error) {
	idx, err := a.current(ctx)
	if err != nil {
		return auth.DecisionNoOpinion, "", err
	}
	d, reason := idx.authorize(attrs)
	if d == auth.DecisionAllow {
		return d, reason, nil
	}
	fresh, err := a.synced(ctx)
	if err != nil || fresh == idx {
		return d, reason, nil
	}
	d, reason = fresh.authorize(attrs)
	return d, reason, nil
}

// synced waits for the caches to reach the store's revision and returns
// the index then.
func (a *Authorizer) synced(ctx context.Context) (*index, error) {
	rs := a.readers.Load()
	if rs == nil {
		return nil, errors.New("RBAC kinds are not registered")
	}
	for _, r := range rs {
		if err := r.Sync(ctx); err != nil {
			return nil, err
		}
	}
	return a.current(ctx)
}

// authorize evaluates a request against the index.
func (idx *index) authorize(attrs auth.Attributes) (auth.Decision, string) {
	var missing []error
	allowed := false
	idx.visit(attrs.User, attrs.Namespace, func(rules []PolicyRule, err error) bool {
		if err != nil {
			missing = append(missing, err)
			return true
		}
		for i := range rules {
			if allows(&rules[i], attrs) {
				allowed = true
				return false
			}
		}
		return true
	})
	if allowed {
		return auth.DecisionAllow, ""
	}
	if len(missing) > 0 {
		return auth.DecisionNoOpinion, "RBAC: " + joinErrors(missing)
	}
	return auth.DecisionNoOpinion, ""
}

func joinErrors(errs []error) string {
	if len(errs) == 1 {
		return errs[0].Error()
	}
	s := "["
	for i, e := range errs {
		if i > 0 {
			s += ", "
		}
		s += e.Error()
	}
	return s + "]"
}

// visit calls f with the rules of every role bound to u cluster-wide, then
// in namespace (when not empty), until f returns false. A binding to a
// missing role calls f with an error.
func (idx *index) visit(u *auth.User, namespace string, f func([]PolicyRule, error) bool) {
	for _, b := range idx.clusterRoleBindings {
		if !appliesTo(b.Subjects, u, "") {
			continue
		}
		if !f(idx.roleRules(b.RoleRef, "")) {
			return
		}
	}
	if namespace == "" {
		return
	}
	for _, b := range idx.roleBindings[namespace] {
		if !appliesTo(b.Subjects, u, namespace) {
			continue
		}
		if !f(idx.roleRules(b.RoleRef, namespace)) {
			return
		}
	}
}

// roleRules resolves a binding's role reference.
func (idx *index) roleRules(ref RoleRef, namespace string) ([]PolicyRule, error) {
	switch ref.Kind {
	case "ClusterRole":
		if rules, ok := idx.clusterRoles[ref.Name]; ok {
			return rules, nil
		}
		return nil, fmt.Errorf("clusterrole.rbac.authorization.k8s.io %q not found", ref.Name)
	case "Role":
		if rules, ok := idx.roles[namespace+"/"+ref.Name]; ok && namespace != "" {
			return rules, nil
		}
		return nil, fmt.Errorf("role.rbac.authorization.k8s.io %q not found", ref.Name)
	}
	return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
}

// appliesTo reports whether a binding's subjects include u; namespace is
// the binding's, the default of its service accounts' namespace.
func appliesTo(subjects []Subject, u *auth.User, namespace string) bool {
	if u == nil {
		return false
	}
	for _, s := range subjects {
		switch s.Kind {
		case "User":
			if s.Name == u.Name {
				return true
			}
		case "Group":
			if u.InGroup(s.Name) {
				return true
			}
		case "ServiceAccount":
			ns := s.Namespace
			if ns == "" {
				ns = namespace
			}
			if ns != "" && u.Name == "system:serviceaccount:"+ns+":"+s.Name {
				return true
			}
		}
	}
	return false
}

// rulesFor collects the rules of every role bound to u cluster-wide and in
// namespace.
func (idx *index) rulesFor(u *auth.User, namespace string) (rules []PolicyRule, errs []error) {
	idx.visit(u, namespace, func(r []PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err)
		}
		rules = append(rules, r...)
		return true
	})
	return rules, errs
}

// RulesFor lists what u may do in namespace (SelfSubjectRulesReview).
func (a *Authorizer) RulesFor(ctx context.Context, u *auth.User, namespace string) (auth.Rules, error) {
	idx, err := a.current(ctx)
	if err != nil {
		return auth.Rules{Incomplete: true}, err
	}
	if fresh, err := a.synced(ctx); err == nil {
		idx = fresh
	}
	rules, errs := idx.rulesFor(u, namespace)
	out := auth.Rules{Incomplete: len(errs) > 0}
	for _, r := range rules {
		if len(r.NonResourceURLs) > 0 {
			out.NonResource = append(out.NonResource, auth.NonResourceRule{Verbs: r.Verbs, NonResourceURLs: r.NonResourceURLs})
			continue
		}
		out.Resource = append(out.Resource, auth.ResourceRule{Verbs: r.Verbs, APIGroups: r.APIGroups, Resources: r.Resources, ResourceNames: r.ResourceNames})
	}
	if len(errs) > 0 {
		return out, errors.New(joinErrors(errs))
	}
	return out, nil
}
