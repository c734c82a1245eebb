package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/apiserver/admission/match"
	"github.com/kapi-dev/kapi/status"
)

// The audit annotations kube adds for mutating webhooks.
const (
	mutationAnnotationPrefix   = "mutation.webhook.admission.k8s.io/"
	failedOpenMutationPrefix   = "failed-open." + mutationAnnotationPrefix
	failedOpenValidatingPrefix = "failed-open.validating.webhook.admission.k8s.io/"
)

// reinvokeKey keeps the plugin's reinvocation state in a write's
// admission.Reinvocation.
type reinvokeKey struct{}

// reinvokeState is which IfNeeded webhooks ran, which must run again,
// and the object as the webhooks last left it, as kube's
// webhookReinvokeContext.
type reinvokeState struct {
	last       []byte
	invoked    map[string]bool
	toReinvoke map[string]bool
}

// requireReinvoke marks every IfNeeded webhook called so far to be
// called again.
func (s *reinvokeState) requireReinvoke() {
	for uid := range s.invoked {
		if s.toReinvoke == nil {
			s.toReinvoke = map[string]bool{}
		}
		s.toReinvoke[uid] = true
	}
	s.invoked = nil
}

func reinvocationOf(a *admission.Request) (*admission.Reinvocation, *reinvokeState) {
	r := a.Reinvocation
	if r == nil {
		r = &admission.Reinvocation{}
	}
	s, _ := r.Value(reinvokeKey{}).(*reinvokeState)
	if s == nil {
		s = &reinvokeState{}
		r.SetValue(reinvokeKey{}, s)
	}
	return r, s
}

// Mutate calls the mutating webhooks that match a, in order, applying
// their patches to a.Object. On the second pass of a write's mutating
// admission it calls only the IfNeeded webhooks that saw the object
// before something after them changed it, as kube reinvokes them.
func (p *Plugin) Mutate(ctx context.Context, a *admission.Request) error {
	if exempt(a) {
		return nil
	}
	hooks, err := p.hooks(ctx, true)
	if err != nil || len(hooks) == 0 {
		return err
	}
	r, s := reinvocationOf(a)
	round := 0
	if r.IsReinvoke() {
		round = 1
		// Only IfNeeded webhooks already called care whether something
		// after them changed the object.
		if len(s.invoked) > 0 {
			if cur, _ := encodeObject(a.Object); !bytes.Equal(cur, s.last) {
				s.requireReinvoke()
			}
		}
	}
	defer func() {
		if len(s.invoked) > 0 {
			s.last, _ = encodeObject(a.Object)
		}
	}()
	for _, h := range hooks {
		if err := p.mutateWith(ctx, h, a, r, s, round); err != nil {
			return err
		}
	}
	return nil
}

// mutateWith calls h when it matches a and applies failurePolicy to
// what went wrong.
func (p *Plugin) mutateWith(ctx context.Context, h *hook, a *admission.Request, r *admission.Reinvocation, s *reinvokeState, round int) error {
	m, err := p.shouldCall(ctx, h, a)
	if err != nil || m == nil {
		return err
	}
	if r.IsReinvoke() && !s.toReinvoke[h.uid] {
		return nil
	}
	v, err := versionedFor(a, m.Version)
	if err != nil {
		return status.InternalError(err)
	}
	start := time.Now()
	changed, err := p.callMutating(ctx, h, a, *m, v, round)
	var ce *callError
	failOpen := errors.As(err, &ce) && !h.failClosed
	p.observe(ctx, h, stepAdmit, string(a.Operation), err, failOpen && !ce.canceled(), time.Since(start))
	if changed {
		s.requireReinvoke()
		r.SetShouldReinvoke()
	}
	if h.reinvoke {
		if s.invoked == nil {
			s.invoked = map[string]bool{}
		}
		s.invoked[h.uid] = true
	}
	return p.failure(ctx, h, err, failOpen, fmt.Sprintf("%sround_%d_index_%d", failedOpenMutationPrefix, round, h.index))
}

// failure is what a webhook's error makes of the request: nothing when
// it fails open (unless the request itself ran out of time), a 500 when
// it fails closed, the webhook's Status for a denial.
func (p *Plugin) failure(ctx context.Context, h *hook, err error, failOpen bool, failedOpenKey string) error {
	if err == nil {
		return nil
	}
	var ce *callError
	var rj *rejection
	switch {
	case errors.As(err, &ce) && failOpen:
		if !ce.canceled() {
			p.opts.Logf("webhook: failed calling webhook, failing open %s: %v", h.name, err)
			admission.AuditAnnotation(ctx, failedOpenKey, h.name)
		}
		if ctx.Err() != nil {
			return status.Timeout("Timeout: request did not complete within requested timeout", 0)
		}
		return nil
	case errors.As(err, &ce):
		p.opts.Logf("webhook: failed calling webhook, failing closed %s: %v", h.name, err)
		return status.InternalError(err)
	case errors.As(err, &rj):
		return rj.err
	}
	return err
}

// callMutating calls h and applies its patch; it reports whether the
// object changed.
func (p *Plugin) callMutating(ctx context.Context, h *hook, a *admission.Request, m match.Result, v *versioned, round int) (changed bool, err error) {
	defer func() { annotateMutation(ctx, h, round, changed) }()
	res, err := p.call(ctx, h, a, m, v)
	if err != nil || len(res.patch) == 0 {
		return false, err
	}
	patch, err := jsonpatch.DecodePatch(res.patch)
	if err != nil {
		return false, &callError{name: h.name, reason: fmt.Errorf("received undecodable patch in webhook response: %w", err), code: http.StatusServiceUnavailable}
	}
	if len(patch) == 0 {
		return false, nil
	}
	if v.obj == nil {
		return false, status.InternalError(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", h.name))
	}
	if res.patchType != patchTypeJSON {
		return false, &callError{name: h.name, reason: fmt.Errorf("unsupported patch type %q", res.patchType), code: int(denial(h.name, res.result).Status.Code)}
	}
	patched, err := patch.Apply(v.objJS)
	if err != nil {
		return false, status.InternalError(err)
	}
	return applyPatched(a, m.Version, v.objJS, patched)
}

// applyPatched decodes the patched JSON into a new object of the kind in
// version and sets a.Object to it in the request's version.
func applyPatched(a *admission.Request, version string, before, patched []byte) (bool, error) {
	if a.Versions == nil {
		return false, status.InternalError(errors.New("no way to decode a patched object of this kind"))
	}
	obj := a.Versions.New(version)
	if obj == nil {
		return false, status.InternalError(fmt.Errorf("unable to create an object of %s in %s", a.Kind.Kind, version))
	}
	if err := json.Unmarshal(patched, obj); err != nil {
		return false, status.InternalError(err)
	}
	after, err := json.Marshal(obj)
	if err != nil {
		return false, status.InternalError(err)
	}
	if version != a.Kind.Version {
		if obj, err = a.Versions.Convert(obj, a.Kind.Version); err != nil {
			return false, status.InternalError(err)
		}
	}
	a.ReplaceObject(obj)
	return !bytes.Equal(before, after), nil
}

// annotateMutation records that a mutating webhook was called and
// whether it changed the object, as kube's mutation annotation.
func annotateMutation(ctx context.Context, h *hook, round int, mutated bool) {
	b, _ := json.Marshal(struct {
		Configuration string `json:"configuration"`
		Webhook       string `json:"webhook"`
		Mutated       bool   `json:"mutated"`
	}{h.config, h.name, mutated})
	admission.AuditAnnotation(ctx, fmt.Sprintf("%sround_%d_index_%d", mutationAnnotationPrefix, round, h.index), string(b))
}
