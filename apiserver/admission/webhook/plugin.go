// Package webhook calls the admission webhooks of
// admissionregistration.k8s.io/v1 Mutating- and
// ValidatingWebhookConfigurations as kube-apiserver does: it matches a
// write against each webhook (package match), sends it an AdmissionReview
// over HTTPS, applies the JSON patches of mutating webhooks, passes on
// denials, warnings and audit annotations, and applies failurePolicy to
// webhooks that cannot be reached or answer badly.
//
// A host builds a [Plugin], gives its Mutate and Validate to the server's
// admission options, and starts it once the server (with the two
// configuration kinds registered) is built:
//
//	p := webhook.New(webhook.Options{})
//	srv := apiserver.New(apiserver.Options{
//		MutatingAdmission:   []apiserver.AdmissionFunc{p.Mutate},
//		ValidatingAdmission: []apiserver.AdmissionFunc{p.Validate},
//	})
//	// register kinds, including the admissionregistration ones
//	if err := p.Start(srv); err != nil { ... }
//
// Configurations take effect as soon as they are written: the plugin
// reads them from the server's watch cache and compiles them again
// whenever the cache's revision moves.
package webhook

import (
	"context"
	"crypto/x509"
	"errors"
	"log"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/apiserver/admission/match"
	"github.com/kapi-dev/kapi/auth"
	ar "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
)

// Options configure a Plugin. The zero value calls webhooks by URL or
// at their Service's DNS name, trusting the system roots.
type Options struct {
	// Conditions compiles matchConditions (package cel/admission). Without
	// it a webhook with matchConditions fails as its failurePolicy says.
	Conditions match.ConditionCompiler
	// Authorizer is the `authorizer` of matchConditions.
	Authorizer auth.Authorizer
	// ResolveService maps a webhook's Service to an address; nil: the
	// Service's cluster DNS name.
	ResolveService ServiceResolver
	// RootCAs are trusted for webhooks without a caBundle; nil: the
	// system roots.
	RootCAs *x509.CertPool
	// MaxResponseBytes bounds an answer; 0: DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Observer receives metrics; nil: none.
	Observer Observer
	// Logf logs webhooks failing open; nil: the standard logger.
	Logf func(format string, args ...any)
}

// Source is a kind's objects as a watch cache holds them
// (apiserver.Cached satisfies it).
type Source interface {
	// Changes moves whenever the objects change (and may move without).
	Changes() uint64
	// List returns every object and the revision read at.
	List(ctx context.Context) ([]meta.Object, int64, error)
}

// Sources are what the plugin reads: the two configuration kinds and,
// for namespaceSelector, the namespaces (nil: every namespace exists
// without labels).
type Sources struct {
	Mutating, Validating, Namespaces Source
}

// Plugin calls admission webhooks. Its Mutate and Validate are
// admission functions; it is safe for concurrent use.
type Plugin struct {
	opts    Options
	clients clients

	mu         sync.Mutex
	src        Sources
	mutating   compiled
	validating compiled
	nsChanges  uint64
	nsLabels   map[string]map[string]string
}

// New returns a Plugin that calls no webhook until Start or SetSources.
func New(opts Options) *Plugin {
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	return &Plugin{opts: opts, clients: clients{roots: opts.RootCAs, resolve: opts.ResolveService}}
}

// Group is the API group of the webhook configurations.
const Group = "admissionregistration.k8s.io"

// Start binds the plugin to srv's watch caches of
// mutatingwebhookconfigurations, validatingwebhookconfigurations and,
// when served, namespaces.
func (p *Plugin) Start(srv *apiserver.Server) error {
	var s Sources
	m, ok := srv.Cached(Group, "mutatingwebhookconfigurations")
	if !ok {
		return errors.New("webhook: mutatingwebhookconfigurations.admissionregistration.k8s.io is not registered")
	}
	v, ok := srv.Cached(Group, "validatingwebhookconfigurations")
	if !ok {
		return errors.New("webhook: validatingwebhookconfigurations.admissionregistration.k8s.io is not registered")
	}
	s.Mutating, s.Validating = m, v
	if ns, ok := srv.Cached("", "namespaces"); ok {
		s.Namespaces = ns
	}
	p.SetSources(s)
	return nil
}

// SetSources binds the plugin to sources.
func (p *Plugin) SetSources(s Sources) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.src = s
	p.mutating, p.validating = compiled{}, compiled{}
	p.nsChanges, p.nsLabels = 0, nil
}

// compiled is the webhooks of one configuration kind at a revision.
type compiled struct {
	changes uint64 // the source's Changes when compiled
	key     string // versionsKey of the objects compiled
	loaded  bool
	hooks   []*hook
}

// hook is one webhook, ready to match and call.
type hook struct {
	uid, config, name string
	index             int
	mutating          bool
	criteria          match.Criteria
	hasRules          bool
	conditions        match.Conditions
	conditionsErr     error
	selectorErr       error // a selector kube could not parse either
	clientConfig      ar.WebhookClientConfig
	failClosed        bool
	sideEffects       *ar.SideEffectClass
	timeoutSeconds    int32
	reviewVersions    []string
	reinvoke          bool
}

// hooks returns the webhooks of one kind, compiling them again when the
// objects in the cache changed since the last time.
func (p *Plugin) hooks(ctx context.Context, mutating bool) ([]*hook, error) {
	p.mu.Lock()
	src, c := p.src.Validating, &p.validating
	if mutating {
		src, c = p.src.Mutating, &p.mutating
	}
	if src == nil {
		p.mu.Unlock()
		return nil, nil
	}
	if c.loaded && c.changes == src.Changes() {
		hs := c.hooks
		p.mu.Unlock()
		return hs, nil
	}
	p.mu.Unlock()
	changes := src.Changes()
	objs, _, err := src.List(ctx)
	if err != nil {
		return nil, err
	}
	// Changes may move without a change to these objects (a relist):
	// compile only when one of them changed.
	key := versionsKey(objs)
	p.mu.Lock()
	if c.loaded && c.key == key {
		c.changes = max(c.changes, changes)
		hs := c.hooks
		p.mu.Unlock()
		return hs, nil
	}
	p.mu.Unlock()
	hs := p.compile(objs, mutating)
	p.mu.Lock()
	if !c.loaded || changes >= c.changes {
		*c = compiled{changes: changes, key: key, loaded: true, hooks: hs}
	}
	p.mu.Unlock()
	return hs, nil
}

// versionsKey names the objects at their versions: equal keys, equal
// objects.
func versionsKey(objs []meta.Object) string {
	var b strings.Builder
	for _, o := range objs {
		m := o.GetObjectMeta()
		b.WriteString(m.Name)
		b.WriteByte(0)
		b.WriteString(m.ResourceVersion)
		b.WriteByte(0)
	}
	return b.String()
}

// compile orders configurations by name and their webhooks as listed,
// as kube calls them.
func (p *Plugin) compile(objs []meta.Object, mutating bool) []*hook {
	type named struct {
		name  string
		hooks []*hook
	}
	var cfgs []named
	for _, o := range objs {
		var hs []*hook
		switch c := o.(type) {
		case *ar.MutatingWebhookConfiguration:
			for i := range c.Webhooks {
				hs = append(hs, p.compileMutating(c.Name, i, &c.Webhooks[i]))
			}
		case *ar.ValidatingWebhookConfiguration:
			for i := range c.Webhooks {
				hs = append(hs, p.compileValidating(c.Name, i, &c.Webhooks[i]))
			}
		default:
			continue
		}
		cfgs = append(cfgs, named{o.GetObjectMeta().Name, hs})
	}
	sort.Slice(cfgs, func(i, j int) bool { return cfgs[i].name < cfgs[j].name })
	var out []*hook
	for _, c := range cfgs {
		for _, h := range c.hooks {
			h.index = len(out)
			out = append(out, h)
		}
	}
	return out
}

func (p *Plugin) compileMutating(config string, i int, w *ar.MutatingWebhook) *hook {
	h := p.newHook(config, i, w.Name, w.Rules, w.NamespaceSelector, w.ObjectSelector, w.MatchPolicy, w.MatchConditions)
	h.mutating = true
	h.clientConfig, h.sideEffects, h.reviewVersions = w.ClientConfig, w.SideEffects, w.AdmissionReviewVersions
	h.failClosed = w.FailurePolicy == nil || *w.FailurePolicy == ar.Fail
	h.timeoutSeconds = timeout(w.TimeoutSeconds)
	h.reinvoke = w.ReinvocationPolicy != nil && *w.ReinvocationPolicy == ar.IfNeededReinvocationPolicy
	return h
}

func (p *Plugin) compileValidating(config string, i int, w *ar.ValidatingWebhook) *hook {
	h := p.newHook(config, i, w.Name, w.Rules, w.NamespaceSelector, w.ObjectSelector, w.MatchPolicy, w.MatchConditions)
	h.clientConfig, h.sideEffects, h.reviewVersions = w.ClientConfig, w.SideEffects, w.AdmissionReviewVersions
	h.failClosed = w.FailurePolicy == nil || *w.FailurePolicy == ar.Fail
	h.timeoutSeconds = timeout(w.TimeoutSeconds)
	return h
}

func (p *Plugin) newHook(config string, i int, name string, rules []ar.RuleWithOperations, ns, obj *ar.LabelSelector,
	mp *ar.MatchPolicyType, conds []ar.MatchCondition) *hook {
	h := &hook{
		uid: config + "/" + name + "/" + strconv.Itoa(i), config: config, name: name, hasRules: len(rules) > 0,
		criteria: match.Criteria{Rules: rules, MatchPolicy: mp},
	}
	var err error
	if h.criteria.NamespaceSelector, err = match.SelectorOf(ns); err != nil {
		h.selectorErr = err
	}
	if h.criteria.ObjectSelector, err = match.SelectorOf(obj); err != nil {
		h.selectorErr = err
	}
	if len(conds) > 0 {
		if p.opts.Conditions == nil {
			h.conditionsErr = errors.New("matchConditions cannot be evaluated: the server has no CEL condition compiler")
		} else {
			h.conditions, h.conditionsErr = p.opts.Conditions.CompileConditions(conds)
		}
	}
	return h
}

// timeout is a webhook's timeoutSeconds, 10 when unset as v1 defaults.
func timeout(s *int32) int32 {
	if s == nil || *s <= 0 {
		return 10
	}
	return *s
}

// namespaceLabels reads namespaces' labels from their cache, indexed
// again when they changed.
func (p *Plugin) namespaceLabels(ctx context.Context, name string) (map[string]string, bool, error) {
	p.mu.Lock()
	src := p.src.Namespaces
	if src == nil {
		p.mu.Unlock()
		return nil, true, nil
	}
	if p.nsLabels != nil && p.nsChanges == src.Changes() {
		l, ok := p.nsLabels[name]
		p.mu.Unlock()
		return l, ok, nil
	}
	p.mu.Unlock()
	changes := src.Changes()
	objs, _, err := src.List(ctx)
	if err != nil {
		return nil, false, err
	}
	idx := make(map[string]map[string]string, len(objs))
	for _, o := range objs {
		m := o.GetObjectMeta()
		idx[m.Name] = m.Labels
	}
	p.mu.Lock()
	p.nsChanges, p.nsLabels = changes, idx
	p.mu.Unlock()
	l, ok := idx[name]
	return l, ok, nil
}
