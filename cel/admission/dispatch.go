package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	kadm "github.com/kapi-dev/kapi/apiserver/admission"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// dispatch carries the evaluation of every policy for one write.
type dispatch struct {
	v        *Validating
	a        *kadm.Request
	denials  []denial
	failures []validationFailure
	// objects are the request's object and oldObject as JSON, by the
	// version they are shown in.
	objects map[string][2]map[string]any
}

// denial is one denied decision, with the policy and binding it came
// from (binding nil for the policy's own configuration errors).
type denial struct {
	policy  *arv1.ValidatingAdmissionPolicy
	binding *arv1.ValidatingAdmissionPolicyBinding
	msg     string
	reason  meta.StatusReason
}

// validationFailure is one entry of the audit annotation that records
// failed validations whose binding audits them.
type validationFailure struct {
	Message           string                  `json:"message"`
	Policy            string                  `json:"policy"`
	Binding           string                  `json:"binding"`
	ExpressionIndex   int                     `json:"expressionIndex"`
	ValidationActions []arv1.ValidationAction `json:"validationActions"`
}

const (
	failureAnnotation  = "validation.policy.admission.k8s.io/validation_failure"
	maxFailures        = 50
	maxAuditValueBytes = 10 * 1024
)

func (d *dispatch) configError(p *arv1.ValidatingAdmissionPolicy, b *arv1.ValidatingAdmissionPolicyBinding, err error) {
	if den, ok := configError(p, b, err); ok {
		d.denials = append(d.denials, den)
	}
}

// policy evaluates one policy with each of its bindings.
func (d *dispatch) policy(ctx context.Context, h *validatingHook) error {
	p := h.policy.Policy
	if p.Spec.MatchConstraints == nil {
		d.configError(p, nil, errors.New("policy contained no match constraints, a required field"))
		return nil
	}
	matched, version, err := d.v.opts.Match(ctx, d.a, p.Spec.MatchConstraints, d.v.nsLabels)
	if err != nil {
		d.configError(p, nil, err)
		return nil
	}
	if !matched {
		return nil
	}
	params, err := d.v.paramSource(p.Spec.ParamKind)
	if err != nil {
		d.configError(p, nil, err)
		return nil
	}
	audits := auditCollector{}
	for _, b := range h.bindings {
		if err := d.binding(ctx, h, b, params, version, audits); err != nil {
			return err
		}
	}
	audits.publish(ctx, p.Name)
	return nil
}

// binding evaluates the policy with one binding, for each of its params.
func (d *dispatch) binding(ctx context.Context, h *validatingHook, b *arv1.ValidatingAdmissionPolicyBinding, ps *paramSource, version string, audits auditCollector) error {
	p := h.policy.Policy
	matched, _, err := d.v.opts.Match(ctx, d.a, b.Spec.MatchResources, d.v.nsLabels)
	if err != nil {
		d.configError(p, b, err)
		return nil
	}
	if !matched {
		return nil
	}
	params, err := ps.collect(ctx, b.Spec.ParamRef, d.a.Namespace)
	if err != nil {
		d.configError(p, b, err)
		return nil
	}
	in, err := d.input(ctx, version)
	if err != nil {
		d.configError(p, b, fmt.Errorf("failed to convert object version: %w", err))
		return nil
	}
	for _, param := range params {
		in := *in
		in.Params = param
		d.record(ctx, p, b, h.policy.Validate(ctx, &in), audits)
	}
	return nil
}

// record applies a binding's validationActions to a result.
func (d *dispatch) record(ctx context.Context, p *arv1.ValidatingAdmissionPolicy, b *arv1.ValidatingAdmissionPolicyBinding, res Result, audits auditCollector) {
	for i, dec := range res.Decisions {
		if dec.Action != Deny {
			continue
		}
		for _, action := range b.Spec.ValidationActions {
			switch action {
			case arv1.Deny:
				d.denials = append(d.denials, denial{policy: p, binding: b, msg: dec.Message, reason: dec.Reason})
			case arv1.Audit:
				d.failures = append(d.failures, validationFailure{Message: dec.Message, Policy: b.Spec.PolicyName,
					Binding: b.Name, ExpressionIndex: i, ValidationActions: b.Spec.ValidationActions})
			case arv1.Warn:
				kadm.Warn(ctx, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", p.Name, b.Name, dec.Message))
			}
		}
	}
	for _, an := range res.Audits {
		switch {
		case an.Err != "":
			d.denials = append(d.denials, denial{policy: p, binding: b, msg: an.Err})
		case an.Value != "":
			v := an.Value
			if len(v) > maxAuditValueBytes {
				v = v[:maxAuditValueBytes]
			}
			audits.add(an.Key, v)
		}
	}
}

// input builds the variables of the request, its objects shown in
// version (the request's own when empty).
func (d *dispatch) input(ctx context.Context, version string) (*Input, error) {
	if version == "" {
		version = d.a.Kind.Version
	}
	objs, err := d.objectsIn(version)
	if err != nil {
		return nil, err
	}
	in := &Input{Object: objs[0], OldObject: objs[1], Request: RequestJSON(d.a, version),
		User: d.a.User, Authorizer: d.v.opts.Authorizer,
		Resource:    GVR{Group: d.a.Resource.Group, Version: d.a.Kind.Version, Resource: d.a.Resource.Resource},
		Subresource: d.a.Subresource, Namespace: d.a.Namespace, Name: d.a.Name}
	ns := d.a.Namespace
	if d.a.Kind.Group == "" && d.a.Kind.Version == "v1" && d.a.Kind.Kind == "Namespace" {
		ns = ""
	}
	if ns != "" {
		o, err := d.v.namespace(ctx, ns)
		if err != nil {
			return nil, err
		}
		in.NamespaceObject = namespaceJSON(o)
	}
	return in, nil
}

// objectsIn returns the object and old object as JSON in version,
// converting them once per version.
func (d *dispatch) objectsIn(version string) ([2]map[string]any, error) {
	if o, ok := d.objects[version]; ok {
		return o, nil
	}
	var out [2]map[string]any
	for i, o := range []meta.Object{d.a.Object, d.a.OldObject} {
		if o == nil {
			continue
		}
		if version != d.a.Kind.Version && d.a.Versions != nil {
			c, err := d.a.Versions.Convert(o, version)
			if err != nil {
				return out, err
			}
			o = c
		}
		m, err := ToJSON(o)
		if err != nil {
			return out, err
		}
		if _, ok := m["apiVersion"]; !ok {
			m["apiVersion"] = meta.GroupVersion{Group: d.a.Kind.Group, Version: version}.String()
		}
		if _, ok := m["kind"]; !ok {
			m["kind"] = d.a.Kind.Kind
		}
		out[i] = m
	}
	if d.objects == nil {
		d.objects = map[string][2]map[string]any{}
	}
	d.objects[version] = out
	return out, nil
}

// namespaceJSON is the namespace as namespaceObject shows it: its spec,
// status and metadata without managedFields and ownerReferences.
func namespaceJSON(o meta.Object) map[string]any {
	m, err := ToJSON(o)
	if err != nil || m == nil {
		return nil
	}
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
		delete(md, "ownerReferences")
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	return m
}

// publishFailures records the validations that failed under Audit.
func (d *dispatch) publishFailures(ctx context.Context) {
	if len(d.failures) == 0 {
		return
	}
	f := d.failures
	if len(f) > maxFailures {
		f = f[:maxFailures]
	}
	b, err := json.Marshal(f)
	if err == nil {
		kadm.AuditAnnotation(ctx, failureAnnotation, string(b))
	}
}

// denial is the error of the first denied decision, nil when none.
func (d *dispatch) denial() error {
	if len(d.denials) == 0 {
		return nil
	}
	den := d.denials[0]
	msg := fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", den.policy.Name, den.msg)
	if den.binding != nil {
		msg = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", den.policy.Name, den.binding.Name, den.msg)
	}
	err := status.Forbidden(d.a.Resource, d.a.Name, errors.New(msg))
	reason := den.reason
	if reason == "" {
		reason = meta.StatusReasonInvalid
	}
	err.Status.Reason, err.Status.Code = reason, reasonCode(reason)
	if err.Status.Details == nil {
		err.Status.Details = &meta.StatusDetails{}
	}
	err.Status.Details.Causes = append(err.Status.Details.Causes, meta.StatusCause{Message: msg})
	return err
}

// reasonCode is the HTTP code of a validation's reason.
func reasonCode(r meta.StatusReason) int32 {
	switch r {
	case meta.StatusReasonForbidden:
		return http.StatusForbidden
	case meta.StatusReasonUnauthorized:
		return http.StatusUnauthorized
	case meta.StatusReasonRequestEntityTooLarge:
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusUnprocessableEntity
}

// auditCollector gathers a policy's audit annotations: each key's
// distinct values, joined.
type auditCollector map[string][]string

func (c auditCollector) add(key, value string) {
	for _, v := range c[key] {
		if v == value {
			return
		}
	}
	c[key] = append(c[key], value)
}

func (c auditCollector) publish(ctx context.Context, policy string) {
	for k, vs := range c {
		kadm.AuditAnnotation(ctx, policy+"/"+k, strings.Join(vs, ", "))
	}
}
