package webhook

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/apiserver/admission/match"
	"github.com/kapi-dev/kapi/status"
)

// invocation is a validating webhook that matched, with the objects in
// its version.
type invocation struct {
	h *hook
	m match.Result
	v *versioned
}

// Validate calls the validating webhooks that match a, all at once, as
// kube does, and answers the first error that comes back.
func (p *Plugin) Validate(ctx context.Context, a *admission.Request) error {
	if exempt(a) {
		return nil
	}
	hooks, err := p.hooks(ctx, false)
	if err != nil || len(hooks) == 0 {
		return err
	}
	invs, err := p.matchValidating(ctx, hooks, a)
	if err != nil || len(invs) == 0 {
		return err
	}
	if ctx.Err() != nil {
		return status.Timeout("Timeout: request did not complete within requested timeout", 0)
	}
	errs := make(chan error, len(invs))
	var wg sync.WaitGroup
	for i, inv := range invs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.validateWith(ctx, inv, i, a); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// matchValidating finds the webhooks to call, encoding the objects once
// per version they are shown in.
func (p *Plugin) matchValidating(ctx context.Context, hooks []*hook, a *admission.Request) ([]invocation, error) {
	var invs []invocation
	byVersion := map[string]*versioned{}
	for _, h := range hooks {
		m, err := p.shouldCall(ctx, h, a)
		if err != nil {
			return nil, err
		}
		if m == nil {
			continue
		}
		v := byVersion[m.Version]
		if v == nil {
			if v, err = versionedFor(a, m.Version); err != nil {
				return nil, status.InternalError(err)
			}
			byVersion[m.Version] = v
		}
		invs = append(invs, invocation{h, *m, v})
	}
	return invs, nil
}

// validateWith calls one webhook, the i-th that matched, and applies
// failurePolicy; a panic fails it as kube's dispatcher does.
func (p *Plugin) validateWith(ctx context.Context, inv invocation, i int, a *admission.Request) (err error) {
	h := inv.h
	// kube numbers a validating webhook that failed open among those
	// that matched (a mutating one among all).
	failedOpenKey := fmt.Sprintf("%sround_0_index_%d", failedOpenValidatingPrefix, i)
	defer func() {
		if r := recover(); r != nil {
			if !h.failClosed {
				admission.AuditAnnotation(ctx, failedOpenKey, h.name)
				err = nil
				return
			}
			err = status.InternalError(fmt.Errorf("ValidatingAdmissionWebhook/%v has panicked: %v", h.name, r))
		}
	}()
	start := time.Now()
	_, err = p.call(ctx, h, a, inv.m, inv.v)
	var ce *callError
	failOpen := errors.As(err, &ce) && !h.failClosed
	p.observe(ctx, h, stepValidating, string(a.Operation), err, failOpen && !ce.canceled(), time.Since(start))
	err = p.failure(ctx, h, err, failOpen, failedOpenKey)
	if failOpen && status.ReasonOf(err) == "Timeout" {
		return nil // kube's validating webhooks fail open even when the request ran out of time
	}
	return err
}
