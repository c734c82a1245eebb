package admission

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	kadm "github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/auth"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
)

const groupName = "admissionregistration.k8s.io"

// Source is where a plugin reads policies, bindings, params and
// namespaces from: a *apiserver.Server.
type Source interface {
	Cached(group, resource string) (apiserver.Cached, bool)
	Served() []apiserver.ServedResource
}

// Options configure a policy plugin; the zero value works.
type Options struct {
	// Compiler compiles the expressions; nil builds one.
	Compiler *Compiler
	// Authorizer answers the authorizer library's checks; nil allows
	// every check.
	Authorizer auth.Authorizer
	// Match matches requests against matchConstraints and a binding's
	// matchResources; nil uses rules, selectors and exclusions on the
	// request's own version.
	Match MatchFunc
}

// Validating evaluates the ValidatingAdmissionPolicies of a server and
// their bindings on every write, as kube-apiserver's
// ValidatingAdmissionPolicy plugin does. Policies and bindings take
// effect as soon as they are stored: they are read from the server's
// watch caches and compiled again whenever those change.
type Validating struct {
	plugin
	state *compiled[*validatingHook]
}

// plugin is what both policy plugins share: options, and the server
// they read configuration, params and namespaces from.
type plugin struct {
	opts Options

	mu  sync.Mutex
	src Source
	// wrote is when this plugin last admitted a write a policy reads (a
	// policy or binding, a namespace), in Unix nanoseconds. For a second
	// after, reads first wait for the caches to hold what the store holds
	// (Cached.Sync, a consistent read), so that the write applies to the
	// requests that follow it; otherwise the caches are read as they
	// are, as kube's informers are, and a write costs no extra read of
	// the store.
	wrote atomic.Int64
}

// freshWindow is how long after such a write reads wait for the caches.
const freshWindow = time.Second

// noteWrite remembers a write of a policy, binding or namespace.
func (p *plugin) noteWrite(a *kadm.Request) {
	if a.Resource.Group == groupName || a.Resource.Group == "" && a.Resource.Resource == "namespaces" {
		p.wrote.Store(time.Now().UnixNano())
	}
}

// syncIfRecent waits for caches to hold what the store holds when a
// write a policy reads was admitted lately (see plugin.wrote).
func (p *plugin) syncIfRecent(ctx context.Context, caches ...apiserver.Cached) error {
	if time.Since(time.Unix(0, p.wrote.Load())) >= freshWindow {
		return nil
	}
	return syncAll(ctx, caches...)
}

// withDefaults fills in the defaults of opts.
func withDefaults(opts Options) (Options, error) {
	if opts.Compiler == nil {
		c, err := NewCompiler()
		if err != nil {
			return opts, err
		}
		opts.Compiler = c
	}
	if opts.Match == nil {
		opts.Match = matchResources
	}
	return opts, nil
}

// Start makes the plugin read its configuration from src (the server
// whose writes it admits). Before Start, it admits everything.
func (v *plugin) Start(src Source) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.src = src
}

// validatingHook is one policy with the bindings that name it.
type validatingHook struct {
	policy   *ValidatingPolicy
	compErr  error
	bindings []*arv1.ValidatingAdmissionPolicyBinding
}

// NewValidating returns the plugin; Start connects it to a server.
func NewValidating(opts Options) (*Validating, error) {
	opts, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	return &Validating{plugin: plugin{opts: opts}}, nil
}

// hooks returns the compiled configuration, compiling it again when the
// caches of policies or bindings moved.
func (v *Validating) hooks(ctx context.Context) ([]*validatingHook, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return loadHooks(ctx, &v.plugin, &v.state, "validatingadmissionpolicies", "validatingadmissionpolicybindings", v.compile)
}

// compiled is a configuration compiled from the policies and bindings
// two caches hold.
type compiled[H any] struct {
	changes [2]uint64 // the caches' Changes when compiled
	key     string    // see versionsKey
	hooks   []H
}

// loadHooks returns the hooks *st holds, compiled again (compile) when
// the policies (of resource policies) or bindings (of resource
// bindings) changed; nil before Start or without the kinds. p.mu is
// held.
func loadHooks[H any](ctx context.Context, p *plugin, st **compiled[H], policies, bindings string,
	compile func(policies, bindings []meta.Object) []H) ([]H, error) {
	if p.src == nil {
		return nil, nil
	}
	pc, ok1 := p.src.Cached(groupName, policies)
	bc, ok2 := p.src.Cached(groupName, bindings)
	if !ok1 || !ok2 {
		return nil, nil
	}
	if err := p.syncIfRecent(ctx, pc, bc); err != nil {
		return nil, err
	}
	// The caches' revision moves with every write to the store, their
	// Changes only when a policy or binding changed.
	changes := [2]uint64{pc.Changes(), bc.Changes()}
	if s := *st; s != nil && s.changes == changes {
		return s.hooks, nil
	}
	ps, _, err := pc.List(ctx)
	if err != nil {
		return nil, err
	}
	bs, _, err := bc.List(ctx)
	if err != nil {
		return nil, err
	}
	key := versionsKey(ps, bs)
	if s := *st; s != nil && s.key == key {
		s.changes = changes
		return s.hooks, nil
	}
	*st = &compiled[H]{changes: changes, key: key, hooks: compile(ps, bs)}
	return (*st).hooks, nil
}

// versionsKey names the objects of lists by name and resourceVersion:
// it changes when any of them does.
func versionsKey(lists ...[]meta.Object) string {
	var b strings.Builder
	for _, l := range lists {
		for _, o := range l {
			m := o.GetObjectMeta()
			b.WriteString(m.Name)
			b.WriteByte('@')
			b.WriteString(m.ResourceVersion)
			b.WriteByte(',')
		}
		b.WriteByte(';')
	}
	return b.String()
}

// compile builds the hooks of the policies that some binding names, in
// the order of their names; bindings to a missing policy do nothing.
func (v *Validating) compile(policies, bindings []meta.Object) []*validatingHook {
	byPolicy := map[string][]*arv1.ValidatingAdmissionPolicyBinding{}
	for _, o := range bindings {
		b, ok := o.(*arv1.ValidatingAdmissionPolicyBinding)
		if ok {
			byPolicy[b.Spec.PolicyName] = append(byPolicy[b.Spec.PolicyName], b)
		}
	}
	var hooks []*validatingHook
	for _, o := range policies {
		p, ok := o.(*arv1.ValidatingAdmissionPolicy)
		if !ok || len(byPolicy[p.Name]) == 0 {
			continue
		}
		h := &validatingHook{bindings: byPolicy[p.Name]}
		sort.Slice(h.bindings, func(i, j int) bool { return h.bindings[i].Name < h.bindings[j].Name })
		h.policy, h.compErr = v.opts.Compiler.CompileValidating(p)
		if h.compErr != nil {
			h.policy = &ValidatingPolicy{Policy: p}
		}
		hooks = append(hooks, h)
	}
	sort.Slice(hooks, func(i, j int) bool { return hooks[i].policy.Policy.Name < hooks[j].policy.Policy.Name })
	return hooks
}

// Validate is the plugin's admission.Func: it evaluates every policy
// that matches a with each of its bindings that match, and denies the
// write with the first denial, as kube-apiserver words it.
func (v *Validating) Validate(ctx context.Context, a *kadm.Request) error {
	v.noteWrite(a)
	hooks, err := v.hooks(ctx)
	if err != nil || len(hooks) == 0 {
		return err
	}
	d := &dispatch{v: v, a: a}
	for _, h := range hooks {
		if err := d.policy(ctx, h); err != nil {
			return err
		}
	}
	d.publishFailures(ctx)
	return d.denial()
}

// nsLabels returns the labels of namespace name.
func (v *plugin) nsLabels(ctx context.Context, name string) (map[string]string, bool, error) {
	ns, err := v.namespace(ctx, name)
	if err != nil || ns == nil {
		return nil, false, err
	}
	return ns.GetObjectMeta().Labels, true, nil
}

// namespace returns namespace name from the cache, nil when it does not
// exist or the server has no namespaces.
func (v *plugin) namespace(ctx context.Context, name string) (meta.Object, error) {
	c, ok := v.src.Cached("", "namespaces")
	if !ok {
		return nil, nil
	}
	if err := v.syncIfRecent(ctx, c); err != nil {
		return nil, err
	}
	objs, _, err := c.List(ctx)
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if o.GetObjectMeta().Name == name {
			return o, nil
		}
	}
	return nil, nil
}

// failurePolicyOf returns the policy's failurePolicy, Fail when unset.
func failurePolicyOf(p *arv1.ValidatingAdmissionPolicy) arv1.FailurePolicyType {
	if p.Spec.FailurePolicy == nil {
		return arv1.Fail
	}
	return *p.Spec.FailurePolicy
}

// configError is a policy or binding that cannot be applied: a denial
// under failurePolicy Fail, nothing under Ignore.
func configError(p *arv1.ValidatingAdmissionPolicy, b *arv1.ValidatingAdmissionPolicyBinding, err error) (denial, bool) {
	switch fp := failurePolicyOf(p); fp {
	case arv1.Ignore:
		return denial{}, false
	case arv1.Fail:
		what := "policy"
		if b != nil {
			what = "binding"
		}
		return denial{policy: p, binding: b, msg: fmt.Sprintf("failed to configure %s: %v", what, err)}, true
	default:
		return denial{policy: p, binding: b, msg: fmt.Sprintf("unrecognized failure policy: '%v'", fp)}, true
	}
}

// syncAll waits until each cache holds what its store held on entry.
func syncAll(ctx context.Context, caches ...apiserver.Cached) error {
	for _, c := range caches {
		if err := c.Sync(ctx); err != nil {
			return err
		}
	}
	return nil
}
