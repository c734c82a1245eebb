package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/apiserver/admission/match"
	ar "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// callError is a webhook that could not be called or answered badly:
// failurePolicy decides. Its text is kube's.
type callError struct {
	name   string
	reason error
	code   int // the Status code kube records for metrics
}

func (e *callError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.name, e.reason)
}

func (e *callError) canceled() bool { return errors.Is(e.reason, context.Canceled) }

// rejection is a webhook's denial, answered to the client.
type rejection struct{ err *status.Error }

func (e *rejection) Error() string { return e.err.Error() }

// denial is the Status kube answers for a webhook's allowed=false: the
// webhook's own code (at least 400), reason and details, with its
// message prefixed by who denied.
func denial(name string, result *meta.Status) *status.Error {
	st := meta.Status{}
	if result != nil {
		st = *result
	}
	if st.Code < http.StatusBadRequest {
		st.Code = http.StatusBadRequest
	}
	if st.Status == "" || st.Status == "Success" {
		st.Status = "Failure"
	}
	by := fmt.Sprintf("admission webhook %q denied the request", name)
	switch {
	case st.Message != "":
		st.Message = by + ": " + st.Message
	case st.Reason != "":
		st.Message = by + ": " + string(st.Reason)
	default:
		st.Message = by + " without explanation"
	}
	st.TypeMeta = meta.TypeMeta{Kind: "Status", APIVersion: "v1"}
	return &status.Error{Status: st}
}

// checkDryRun refuses a dry run to a webhook with side effects, as kube.
func checkDryRun(a *admission.Request, h *hook) error {
	if !a.DryRun {
		return nil
	}
	if h.sideEffects == nil {
		return &callError{name: h.name, reason: errors.New("Webhook SideEffects is nil"), code: http.StatusBadRequest}
	}
	if s := *h.sideEffects; s != ar.SideEffectClassNone && s != ar.SideEffectClassNoneOnDryRun {
		return status.BadRequest(fmt.Sprintf("admission webhook %q does not support dry run", h.name))
	}
	return nil
}

// call sends the review of a, matched as m with objects v, to h and
// returns its verified answer, with a callError for what failurePolicy
// decides and a rejection for a denial. Warnings and audit annotations
// are passed on.
func (p *Plugin) call(ctx context.Context, h *hook, a *admission.Request, m match.Result, v *versioned) (*verifiedResponse, error) {
	if err := checkDryRun(a, h); err != nil {
		return nil, err
	}
	version, err := reviewVersion(h.reviewVersions)
	if err != nil {
		return nil, &callError{name: h.name, reason: fmt.Errorf("could not create admission objects: %w", err), code: http.StatusBadRequest}
	}
	uid := newUID()
	req, err := newRequest(uid, a, m, v)
	if err != nil {
		return nil, &callError{name: h.name, reason: fmt.Errorf("could not create admission objects: %w", err), code: http.StatusBadRequest}
	}
	body, err := encodeReview(version, req)
	if err != nil {
		return nil, &callError{name: h.name, reason: fmt.Errorf("could not create admission objects: %w", err), code: http.StatusBadRequest}
	}
	u, serverName, err := endpoint(&h.clientConfig)
	if err != nil {
		return nil, &callError{name: h.name, reason: fmt.Errorf("could not get REST client: %w", err), code: http.StatusInternalServerError}
	}
	cl, err := p.clients.get(h.clientConfig.CABundle, serverName)
	if err != nil {
		return nil, &callError{name: h.name, reason: fmt.Errorf("could not get REST client: %w", err), code: http.StatusInternalServerError}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(h.timeoutSeconds)*time.Second)
	defer cancel()
	var rv review
	if err := post(ctx, cl, u, body, p.opts.MaxResponseBytes, &rv); err != nil {
		code := http.StatusServiceUnavailable
		var se *statusError
		if errors.As(err, &se) {
			code = se.code
		}
		return nil, &callError{name: h.name, reason: fmt.Errorf("failed to call webhook: %w", err), code: code}
	}
	res, err := verifyResponse(version, uid, h.mutating, &rv)
	if err != nil {
		return nil, &callError{name: h.name, reason: fmt.Errorf("received invalid webhook response: %w", err), code: http.StatusServiceUnavailable}
	}
	for k, val := range res.auditAnnotations {
		admission.AuditAnnotation(ctx, h.name+"/"+k, val)
	}
	for _, w := range res.warnings {
		admission.Warn(ctx, w)
	}
	if !res.allowed {
		return nil, &rejection{denial(h.name, res.result)}
	}
	return res, nil
}

// shouldCall matches a against h, then h's matchConditions. A nil
// result means h is not called.
func (p *Plugin) shouldCall(ctx context.Context, h *hook, a *admission.Request) (*match.Result, error) {
	if !h.hasRules {
		return nil, nil
	}
	if h.selectorErr != nil {
		// kube reports a selector it cannot parse when a rule matches.
		rules := match.Criteria{Rules: h.criteria.Rules, MatchPolicy: h.criteria.MatchPolicy}
		if m, err := match.Match(ctx, a, &rules, nil); err != nil || !m.Matched {
			return nil, err
		}
		return nil, status.InternalError(h.selectorErr)
	}
	m, err := match.Match(ctx, a, &h.criteria, p.namespaceLabels)
	if err != nil || !m.Matched {
		return nil, err
	}
	if h.conditions == nil && h.conditionsErr == nil {
		return &m, nil
	}
	ok, err := p.evalConditions(ctx, h, a, m)
	if err != nil {
		if !h.failClosed {
			return nil, nil
		}
		p.opts.Logf("webhook: failed evaluating match conditions, failing closed %s: %v", h.name, err)
		return nil, status.Forbidden(a.Resource, a.Name, err)
	}
	if !ok {
		return nil, nil
	}
	return &m, nil
}

// evalConditions evaluates h's matchConditions on a in the matched
// version.
func (p *Plugin) evalConditions(ctx context.Context, h *hook, a *admission.Request, m match.Result) (bool, error) {
	if h.conditionsErr != nil {
		return false, h.conditionsErr
	}
	v, err := versionedFor(a, m.Version)
	if err != nil {
		return false, err
	}
	req, err := newRequest("", a, m, v)
	if err != nil {
		return false, err
	}
	in := &match.ConditionInput{
		User: a.User, Authorizer: p.opts.Authorizer, Resource: m.Resource,
		Subresource: a.Subresource, Namespace: a.Namespace, Name: a.Name,
	}
	for _, x := range []struct {
		raw json.RawMessage
		to  *map[string]any
	}{{v.objJS, &in.Object}, {v.oldJS, &in.OldObject}} {
		if err := json.Unmarshal(x.raw, x.to); err != nil {
			return false, err
		}
	}
	rb, err := json.Marshal(req)
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(rb, &in.Request); err != nil {
		return false, err
	}
	ok, _, err := h.conditions.Match(ctx, in)
	return ok, err
}

// versionedFor is a's objects in version, encoded.
func versionedFor(a *admission.Request, version string) (*versioned, error) {
	v := &versioned{version: version, obj: a.Object, old: a.OldObject}
	if version != a.Kind.Version {
		if a.Versions == nil {
			return nil, fmt.Errorf("unable to convert to %s: no other version is known", version)
		}
		var err error
		if a.Object != nil {
			if v.obj, err = a.Versions.Convert(a.Object, version); err != nil {
				return nil, err
			}
		}
		if a.OldObject != nil {
			if v.old, err = a.Versions.Convert(a.OldObject, version); err != nil {
				return nil, err
			}
		}
	}
	var err error
	if v.objJS, err = encodeObject(v.obj); err != nil {
		return nil, err
	}
	if v.oldJS, err = encodeObject(v.old); err != nil {
		return nil, err
	}
	return v, nil
}

// exempt reports whether a is a write of admission configuration, which
// kube never shows to webhooks (so that a broken webhook cannot lock
// itself in).
func exempt(a *admission.Request) bool {
	if a.Kind.Group != "admissionregistration.k8s.io" {
		return false
	}
	switch a.Kind.Kind {
	case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
		"ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding":
		return true
	}
	return false
}
