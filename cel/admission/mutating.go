package admission

import (
	"context"
	"sort"
	"sync"

	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/kapi-dev/kapi/apiserver"
	kadm "github.com/kapi-dev/kapi/apiserver/admission"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/schema"
)

// SchemaSource is what a Source may also offer: the schema of a served
// resource in one version (a *apiserver.Server does). Apply
// configurations are merged by it; without it, or for a resource it
// does not know, objects are merged as kinds without a schema are (maps
// merged, lists replaced).
type SchemaSource interface {
	Schema(group, version, resource string) (*schema.Schema, bool)
}

// Mutating evaluates the MutatingAdmissionPolicies of a server and their
// bindings on every create and update, as kube-apiserver's
// MutatingAdmissionPolicy plugin does: each policy that matches, with
// each of its bindings that match and each of their params, applies its
// mutations in order to the object; policies run in the order of their
// names, bindings in the order of theirs. Policies and bindings take
// effect as soon as they are stored.
type Mutating struct {
	plugin
	state *compiled[*mutatingHook]

	typesMu sync.Mutex
	types   map[*schema.Schema]*typed.ParseableType
}

// mutatingHook is one policy with the bindings that name it.
type mutatingHook struct {
	policy   *MutatingPolicy
	compErr  error
	bindings []*arv1.MutatingAdmissionPolicyBinding
}

// NewMutating returns the plugin; Start connects it to a server.
func NewMutating(opts Options) (*Mutating, error) {
	opts, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	return &Mutating{plugin: plugin{opts: opts}, types: map[*schema.Schema]*typed.ParseableType{}}, nil
}

// hooks returns the compiled configuration, compiling it again when a
// policy or binding changed.
func (m *Mutating) hooks(ctx context.Context) ([]*mutatingHook, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return loadHooks(ctx, &m.plugin, &m.state, "mutatingadmissionpolicies", "mutatingadmissionpolicybindings", m.compile)
}

// compile builds the hooks of the policies some binding names, in the
// order of their names; bindings to a missing policy do nothing.
func (m *Mutating) compile(policies, bindings []meta.Object) []*mutatingHook {
	byPolicy := map[string][]*arv1.MutatingAdmissionPolicyBinding{}
	for _, o := range bindings {
		if b, ok := o.(*arv1.MutatingAdmissionPolicyBinding); ok {
			byPolicy[b.Spec.PolicyName] = append(byPolicy[b.Spec.PolicyName], b)
		}
	}
	var hooks []*mutatingHook
	for _, o := range policies {
		p, ok := o.(*arv1.MutatingAdmissionPolicy)
		if !ok || len(byPolicy[p.Name]) == 0 {
			continue
		}
		h := &mutatingHook{bindings: byPolicy[p.Name]}
		sort.Slice(h.bindings, func(i, j int) bool { return h.bindings[i].Name < h.bindings[j].Name })
		h.policy, h.compErr = m.opts.Compiler.CompileMutating(p)
		if h.compErr != nil {
			h.policy = &MutatingPolicy{Policy: p}
		}
		hooks = append(hooks, h)
	}
	sort.Slice(hooks, func(i, j int) bool { return hooks[i].policy.Policy.Name < hooks[j].policy.Policy.Name })
	return hooks
}

// Mutate is the plugin's admission.Func: it applies the mutations of
// every matching policy and binding to a.Object and refuses the write,
// as kube-apiserver words it, when one fails under failurePolicy Fail.
// Policies whose reinvocationPolicy is IfNeeded run again, when the
// chain runs again, if a later mutation changed the object.
func (m *Mutating) Mutate(ctx context.Context, a *kadm.Request) error {
	m.noteWrite(a)
	if a.Object == nil {
		return nil
	}
	hooks, err := m.hooks(ctx)
	if err != nil || len(hooks) == 0 {
		return err
	}
	md := &mutatingDispatch{m: m, a: a, rc: reinvocationOf(a)}
	return md.run(ctx, hooks)
}

// maxCachedTypes bounds the structured-merge-diff types the plugin keeps.
const maxCachedTypes = 256

// parseableType is the structured-merge-diff type of resource r in
// version, nil when the source has no schema for it.
func (m *Mutating) parseableType(a *kadm.Request, version string) (*typed.ParseableType, error) {
	ss, ok := m.src.(SchemaSource)
	if !ok {
		return nil, nil
	}
	s, ok := ss.Schema(a.Resource.Group, version, a.Resource.Resource)
	if !ok || s == nil {
		return nil, nil
	}
	m.typesMu.Lock()
	defer m.typesMu.Unlock()
	if t, ok := m.types[s]; ok {
		return t, nil
	}
	// Kinds installed and removed at run time leave schemas behind:
	// start again rather than keep them all.
	if len(m.types) >= maxCachedTypes {
		clear(m.types)
	}
	t, err := patch.SMDSchema(s)
	if err != nil {
		return nil, err
	}
	m.types[s] = &t
	return &t, nil
}

var _ SchemaSource = (*apiserver.Server)(nil)
