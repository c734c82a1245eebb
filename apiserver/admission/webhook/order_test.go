package webhook

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/apiserver/admission/match"
	ar "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/status"
)

// calls records which webhook was called, in order, by path.
type calls struct {
	mu  sync.Mutex
	got []string
}

func (c *calls) add(s string) { c.mu.Lock(); c.got = append(c.got, s); c.mu.Unlock() }

func (c *calls) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.got...)
}

// hookAt points h at path on s.
func hookAt(h ar.MutatingWebhook, s *server, path string) ar.MutatingWebhook {
	h.ClientConfig.URL = ptr(s.URL + path)
	return h
}

// Configurations are called in name order, their webhooks as listed,
// and each sees the object as the ones before left it.
func TestMutatingOrder(t *testing.T) {
	var c calls
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, rv *review) {
		c.add(r.URL.Path)
		patchWith(`[{"op":"add","path":"/metadata/labels/`+r.URL.Path[1:]+`","value":"x"}]`)(w, r, rv)
	})
	base := mutatingHook("", s, ar.Fail)
	h := func(name, path string) ar.MutatingWebhook { b := hookAt(base, s, path); b.Name = name; return b }
	p, _, _ := newPlugin(t,
		mutatingConfig("b-config", h("b1.aw", "/b1"), h("b2.aw", "/b2")),
		mutatingConfig("a-config", h("a2.aw", "/a2"), h("a1.aw", "/a1")),
	)
	a := widgetRequest(admission.Create, "v1", map[string]string{"aw": "1"})
	if err := p.Mutate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/a2", "/a1", "/b1", "/b2"}, c.list()); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"aw": "1", "a2": "x", "a1": "x", "b1": "x", "b2": "x"}, a.Object.GetObjectMeta().Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}

// An IfNeeded webhook is called again, once, when something after it
// changed the object; a Never one is not; nothing is called again when
// nothing changed after it.
func TestReinvocation(t *testing.T) {
	for _, tc := range []struct {
		name       string
		laterPatch bool // the second webhook changes the object
		policy     ar.ReinvocationPolicyType
		hostChange bool // a later admission function changes the object
		want       []string
	}{
		{"IfNeeded, later webhook changes", true, ar.IfNeededReinvocationPolicy, false, []string{"/first", "/second", "/first"}},
		{"Never, later webhook changes", true, ar.NeverReinvocationPolicy, false, []string{"/first", "/second"}},
		{"IfNeeded, nothing changes", false, ar.IfNeededReinvocationPolicy, false, []string{"/first", "/second"}},
		{"IfNeeded, later function changes", false, ar.IfNeededReinvocationPolicy, true, []string{"/first", "/second", "/first"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c calls
			s := newServer(t, func(w http.ResponseWriter, r *http.Request, rv *review) {
				c.add(r.URL.Path)
				if r.URL.Path == "/second" && tc.laterPatch {
					patchWith(`[{"op":"add","path":"/metadata/labels/second","value":"x"}]`)(w, r, rv)
					return
				}
				allow(w, r, rv)
			})
			first := hookAt(mutatingHook("first.aw", s, ar.Fail), s, "/first")
			first.ReinvocationPolicy = &tc.policy
			second := hookAt(mutatingHook("second.aw", s, ar.Fail), s, "/second")
			p, _, _ := newPlugin(t, mutatingConfig("aw", first, second))
			chain := admission.Chain{Mutating: []admission.Func{p.Mutate}}
			if tc.hostChange {
				chain.Mutating = append(chain.Mutating, func(_ context.Context, a *admission.Request) error {
					if !a.Reinvocation.IsReinvoke() {
						a.Object.GetObjectMeta().Labels = map[string]string{"host": "x"}
						a.Reinvocation.SetShouldReinvoke()
					}
					return nil
				})
			}
			a := widgetRequest(admission.Create, "v1", map[string]string{"aw": "1"})
			if _, err := chain.Mutate(context.Background(), a.Resource, nil, a); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, c.list()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// matchPolicy Equivalent shows a v1beta1 request to a webhook written for
// v1 in v1, and its patch comes back in v1beta1; Exact skips it.
func TestEquivalentVersion(t *testing.T) {
	for _, mp := range []ar.MatchPolicyType{ar.Equivalent, ar.Exact} {
		t.Run(string(mp), func(t *testing.T) {
			s := newServer(t, patchWith(`[{"op":"replace","path":"/spec/replicas","value":5}]`))
			h := mutatingHook("aw.hook", s, ar.Fail)
			h.MatchPolicy = &mp
			p, _, _ := newPlugin(t, mutatingConfig("aw", h))
			a := widgetRequest(admission.Create, "v1beta1", nil)
			if err := p.Mutate(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			rvs := s.reviews()
			if mp == ar.Exact {
				if len(rvs) != 0 {
					t.Fatalf("called %d times", len(rvs))
				}
				return
			}
			req := rvs[0].Request
			if req.Kind.Version != "v1" || req.Resource.Version != "v1" || req.RequestKind.Version != "v1beta1" || req.RequestResource.Version != "v1beta1" {
				t.Errorf("versions: kind %v resource %v requestKind %v requestResource %v", req.Kind, req.Resource, *req.RequestKind, *req.RequestResource)
			}
			if string(req.Object) != `{"kind":"Widget","apiVersion":"stable.example.com/v1","metadata":{"name":"aw-1","namespace":"aw-ns"},"spec":{"replicas":1}}` {
				t.Errorf("object %s", req.Object)
			}
			got := a.Object.(*typed)
			if got.APIVersion != "stable.example.com/v1beta1" || got.Spec.Count != 5 {
				t.Errorf("object after: %+v", got)
			}
		})
	}
}

// The configurations are listed again only when the cache's revision
// moves, compiled again only when one of them changed, and a new one
// takes effect at once.
func TestRecompilesOnRevision(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, rv *review) {
		respond(w, rv, reviewResponse{Allowed: false})
	})
	p, _, val := newPlugin(t)
	var compiles countingCompiler
	p.opts.Conditions = &compiles
	a := widgetRequest(admission.Create, "v1", nil)
	validate := func() error { return p.Validate(context.Background(), a) }
	for range 3 {
		if err := validate(); err != nil {
			t.Fatal(err)
		}
	}
	h := validatingHook("aw.hook", s, ar.Fail)
	h.MatchConditions = []ar.MatchCondition{{Name: "aw", Expression: "true"}}
	cfg := validatingConfig("aw", h)
	cfg.ResourceVersion = "7"
	val.set(cfg)
	if err := validate(); status.CodeOf(err) != 400 {
		t.Errorf("new configuration not in effect: %v", err)
	}
	val.mu.Lock()
	val.rev++ // progress without a change
	val.mu.Unlock()
	_ = validate()
	_ = validate()
	if val.lists != 3 || compiles.n != 1 {
		t.Errorf("listed %d times (want 3), compiled %d times (want 1)", val.lists, compiles.n)
	}
}

// countingCompiler compiles conditions that are always true, counting.
type countingCompiler struct{ n int }

func (c *countingCompiler) CompileConditions([]ar.MatchCondition) (match.Conditions, error) {
	c.n++
	return fixedConditions{true, nil}, nil
}

// matchConditions without a compiler fail as failurePolicy says: Fail
// refuses with 403 as kube refuses a condition that errs, Ignore skips
// the webhook. A compiled condition that is false skips it.
func TestMatchConditions(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, rv *review) {
		respond(w, rv, reviewResponse{Allowed: false})
	})
	conds := []ar.MatchCondition{{Name: "aw", Expression: "true"}}
	for _, tc := range []struct {
		name     string
		compiler match.ConditionCompiler
		fp       ar.FailurePolicyType
		code     int32
	}{
		{"no compiler, Fail", nil, ar.Fail, 403},
		{"no compiler, Ignore", nil, ar.Ignore, 0},
		{"false condition", fixedConditions{false, nil}, ar.Fail, 0},
		{"true condition", fixedConditions{true, nil}, ar.Fail, 400},
		{"erring condition, Fail", fixedConditions{false, errBoom}, ar.Fail, 403},
		{"erring condition, Ignore", fixedConditions{false, errBoom}, ar.Ignore, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := validatingHook("aw.hook", s, tc.fp)
			h.MatchConditions = conds
			p, _, _ := newPlugin(t, validatingConfig("aw", h))
			p.opts.Conditions = tc.compiler
			p.SetSources(p.src)
			err := p.Validate(context.Background(), widgetRequest(admission.Create, "v1", nil))
			if got := status.CodeOf(err); got != tc.code && !(tc.code == 0 && err == nil) {
				t.Errorf("code %d, want %d (%v)", got, tc.code, err)
			}
			if tc.code == 403 && !hasPrefix(errText(err), `widgets.stable.example.com "aw-1" is forbidden: `) {
				t.Errorf("message %q", errText(err))
			}
		})
	}
}

type boom string

func (b boom) Error() string { return string(b) }

const errBoom = boom("no such key: x")

type fixedConditions struct {
	ok  bool
	err error
}

func (f fixedConditions) CompileConditions([]ar.MatchCondition) (match.Conditions, error) {
	return f, nil
}

func (f fixedConditions) Match(context.Context, *match.ConditionInput) (bool, string, error) {
	if f.err != nil {
		return false, "", f.err
	}
	if !f.ok {
		return false, "aw", nil
	}
	return true, "", nil
}

// Writes of admission configuration never reach a webhook.
func TestConfigurationExempt(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, rv *review) {
		respond(w, rv, reviewResponse{Allowed: false})
	})
	h := validatingHook("aw.hook", s, ar.Fail)
	h.Rules = []ar.RuleWithOperations{{Operations: []ar.OperationType{ar.OperationAll}, Rule: ar.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}
	p, _, _ := newPlugin(t, validatingConfig("aw", h))
	a := widgetRequest(admission.Create, "v1", nil)
	a.Kind.Group, a.Kind.Kind = "admissionregistration.k8s.io", "ValidatingWebhookConfiguration"
	a.Resource.Group = "admissionregistration.k8s.io"
	if err := p.Validate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if n := len(s.reviews()); n != 0 {
		t.Errorf("called %d times", n)
	}
}

// Validating webhooks run at once: two that take 300ms each take about
// 300ms together.
func TestValidatingParallel(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, rv *review) {
		time.Sleep(300 * time.Millisecond)
		allow(w, r, rv)
	})
	p, _, _ := newPlugin(t, validatingConfig("aw", validatingHook("one.aw", s, ar.Fail), validatingHook("two.aw", s, ar.Fail)))
	start := time.Now()
	if err := p.Validate(context.Background(), widgetRequest(admission.Create, "v1", nil)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 550*time.Millisecond {
		t.Errorf("took %v: not in parallel", d)
	}
	if n := len(s.reviews()); n != 2 {
		t.Errorf("called %d times", n)
	}
}

// A webhook that speaks only v1beta1 gets a v1beta1 review, and may
// answer without uid or patchType as v1beta1 allows.
func TestReviewV1beta1(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, rv *review) {
		_, _ = w.Write([]byte(`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"allowed":true,"patch":"W3sib3AiOiJyZXBsYWNlIiwicGF0aCI6Ii9zcGVjL3JlcGxpY2FzIiwidmFsdWUiOjd9XQ=="}}`))
	})
	h := mutatingHook("aw.hook", s, ar.Fail)
	h.AdmissionReviewVersions = []string{"v2", "v1beta1", "v1"}
	p, _, _ := newPlugin(t, mutatingConfig("aw", h))
	a := widgetRequest(admission.Create, "v1", nil)
	if err := p.Mutate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if got := s.reviews()[0].APIVersion; got != "admission.k8s.io/v1beta1" {
		t.Errorf("review version %q", got)
	}
	if r := a.Object.(*typed).Spec.Replicas; r != 7 {
		t.Errorf("replicas %d after the v1beta1 patch", r)
	}
}

// A webhook whose admissionReviewVersions kapi does not speak fails as
// its failurePolicy says, with kube's message.
func TestUnknownReviewVersions(t *testing.T) {
	s := newServer(t, allow)
	h := validatingHook("aw.hook", s, ar.Fail)
	h.AdmissionReviewVersions = []string{"v2"}
	p, _, _ := newPlugin(t, validatingConfig("aw", h))
	err := p.Validate(context.Background(), widgetRequest(admission.Create, "v1", nil))
	want := `Internal error occurred: failed calling webhook "aw.hook": could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)`
	if errText(err) != want {
		t.Errorf("got %q\nwant %q", errText(err), want)
	}
}
