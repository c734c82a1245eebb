package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	kadm "github.com/kapi-dev/kapi/apiserver/admission"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// mutatingDispatch carries the evaluation of every mutating policy for
// one pass of the admission chain.
type mutatingDispatch struct {
	m    *Mutating
	a    *kadm.Request
	rc   *reinvocation
	errs []policyError
}

// policyError is one failure of a policy or binding; failurePolicy
// decides whether it refuses the write.
type policyError struct {
	policy  *arv1.MutatingAdmissionPolicy
	binding string // "" for the policy's own
	msg     string
	reason  meta.StatusReason
}

// invocation is one policy to apply with one binding and one param.
type invocation struct {
	h       *mutatingHook
	binding *arv1.MutatingAdmissionPolicyBinding
	version string
	param   map[string]any
}

func (d *mutatingDispatch) addError(p *arv1.MutatingAdmissionPolicy, b *arv1.MutatingAdmissionPolicyBinding, err error, reason meta.StatusReason) {
	pe := policyError{policy: p, msg: err.Error(), reason: reason}
	if b != nil {
		pe.binding = b.Name
	}
	d.errs = append(d.errs, pe)
}

// configError records a policy or binding that cannot be applied.
func (d *mutatingDispatch) configError(p *arv1.MutatingAdmissionPolicy, b *arv1.MutatingAdmissionPolicyBinding, err error) {
	if b == nil {
		d.addError(p, nil, fmt.Errorf("failed to configure policy: %w", err), "")
		return
	}
	d.addError(p, b, fmt.Errorf("failed to configure binding: %w", err), "")
}

// run applies every invocation in turn, each to the object the ones
// before it left.
func (d *mutatingDispatch) run(ctx context.Context, hooks []*mutatingHook) error {
	if d.rc.isReinvoke() && d.rc.changedSince(d.a.Object) {
		d.rc.requireReinvoke()
	}
	defer func() { d.rc.remember(d.a.Object) }()
	for _, inv := range d.invocations(ctx, hooks) {
		if err := d.invoke(ctx, inv); err != nil {
			return err
		}
	}
	return d.denial()
}

// invocations matches the policies and their bindings and collects the
// params of each binding.
func (d *mutatingDispatch) invocations(ctx context.Context, hooks []*mutatingHook) []invocation {
	var out []invocation
	for _, h := range hooks {
		p := h.policy.Policy
		if p.Spec.MatchConstraints == nil {
			d.configError(p, nil, errors.New("policy contained no match constraints, a required field"))
			continue
		}
		matched, version, err := d.m.opts.Match(ctx, d.a, p.Spec.MatchConstraints, d.m.nsLabels)
		switch {
		case err != nil:
			d.configError(p, nil, err)
			continue
		case !matched:
			continue
		case h.compErr != nil:
			d.configError(p, nil, h.compErr)
			continue
		}
		ps, err := d.m.paramSource(p.Spec.ParamKind)
		if err != nil {
			d.configError(p, nil, err)
			continue
		}
		for _, b := range h.bindings {
			out = append(out, d.bindingInvocations(ctx, h, b, ps, version)...)
		}
	}
	return out
}

func (d *mutatingDispatch) bindingInvocations(ctx context.Context, h *mutatingHook, b *arv1.MutatingAdmissionPolicyBinding, ps *paramSource, version string) []invocation {
	p := h.policy.Policy
	matched, _, err := d.m.opts.Match(ctx, d.a, b.Spec.MatchResources, d.m.nsLabels)
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
	out := make([]invocation, len(params))
	for i, param := range params {
		out[i] = invocation{h: h, binding: b, version: version, param: param}
	}
	return out
}

// invoke applies one policy's mutations, in order, for one binding and
// param; a mutation that fails is recorded and the next one applied, as
// kube-apiserver does.
func (d *mutatingDispatch) invoke(ctx context.Context, inv invocation) error {
	mp, p := inv.h.policy, inv.h.policy.Policy
	version := inv.version
	if version == "" {
		version = d.a.Kind.Version
	}
	in, err := d.input(ctx, version)
	if err != nil {
		return status.InternalError(err)
	}
	in.Params = inv.param
	matched, err := mp.matches(ctx, in)
	if err != nil {
		d.addError(p, inv.binding, err, meta.StatusReasonInvalid)
		return nil
	}
	if !matched {
		return nil
	}
	key := invocationKey(inv)
	if d.rc.isReinvoke() && !d.rc.shouldReinvoke(key) {
		return nil
	}
	before := in.Object
	typ, err := d.m.parseableType(d.a, version)
	if err != nil {
		return status.InternalError(err)
	}
	for i := range mp.mutations {
		out, err := mp.mutate(ctx, i, in, target{object: in.Object, typ: typ})
		if err != nil {
			d.addError(p, inv.binding, err, meta.StatusReasonInvalid)
			continue
		}
		if in.Object, err = d.replaceObject(out, version); err != nil {
			return err
		}
		d.rc.mutated()
	}
	if !reflect.DeepEqual(before, in.Object) {
		d.rc.requireReinvoke()
	}
	if p.Spec.ReinvocationPolicy == arv1.IfNeededReinvocationPolicy {
		d.rc.invoked(key)
	}
	return nil
}

// replaceObject decodes a mutated object (JSON, in version) into the
// request's object and returns its JSON form as the next mutation sees
// it. An object the kind cannot decode is an internal error, as in
// kube-apiserver.
func (d *mutatingDispatch) replaceObject(out map[string]any, version string) (map[string]any, error) {
	obj, err := decodeObject(d.a, out, version)
	if err != nil {
		return nil, status.InternalError(err)
	}
	if version != d.a.Kind.Version {
		if obj, err = d.a.Versions.Convert(obj, d.a.Kind.Version); err != nil {
			return nil, status.InternalError(fmt.Errorf("failed to convert object: %w", err))
		}
	}
	d.a.ReplaceObject(obj)
	return d.objectJSON(d.a.Object, version)
}

// decodeObject decodes the JSON form of an object into a new value of
// the request's kind in version.
func decodeObject(a *kadm.Request, m map[string]any, version string) (meta.Object, error) {
	var obj meta.Object
	if a.Versions != nil {
		obj = a.Versions.New(version)
	}
	if obj == nil {
		return nil, fmt.Errorf("no kind %s in version %s", a.Kind.Kind, version)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// input builds the variables of the request with the current object,
// shown in version.
func (d *mutatingDispatch) input(ctx context.Context, version string) (*Input, error) {
	obj, err := d.objectJSON(d.a.Object, version)
	if err != nil {
		return nil, err
	}
	old, err := d.objectJSON(d.a.OldObject, version)
	if err != nil {
		return nil, err
	}
	in := &Input{Object: obj, OldObject: old, Request: RequestJSON(d.a, version),
		User: d.a.User, Authorizer: d.m.opts.Authorizer,
		Resource:    GVR{Group: d.a.Resource.Group, Version: d.a.Kind.Version, Resource: d.a.Resource.Resource},
		Subresource: d.a.Subresource, Namespace: d.a.Namespace, Name: d.a.Name}
	ns := d.a.Namespace
	if d.a.Kind.Group == "" && d.a.Kind.Version == "v1" && d.a.Kind.Kind == "Namespace" {
		ns = ""
	}
	if ns != "" {
		o, err := d.m.namespace(ctx, ns)
		if err != nil {
			return nil, err
		}
		in.NamespaceObject = namespaceJSON(o)
	}
	return in, nil
}

// objectJSON is o as JSON in version, with its apiVersion and kind; nil
// for no object.
func (d *mutatingDispatch) objectJSON(o meta.Object, version string) (map[string]any, error) {
	if o == nil {
		return nil, nil
	}
	if version != d.a.Kind.Version && d.a.Versions != nil {
		c, err := d.a.Versions.Convert(o, version)
		if err != nil {
			return nil, err
		}
		o = c
	}
	m, err := ToJSON(o)
	if err != nil {
		return nil, err
	}
	m["apiVersion"] = meta.GroupVersion{Group: d.a.Kind.Group, Version: version}.String()
	m["kind"] = d.a.Kind.Kind
	return m, nil
}

// denial is the error of the failures under failurePolicy Fail (and any
// other but Ignore), as kube-apiserver words it: 403 with the first
// failure's message and reason, each failure a cause.
func (d *mutatingDispatch) denial() error {
	var err *status.Error
	for _, pe := range d.errs {
		if fp := pe.policy.Spec.FailurePolicy; fp != nil && *fp == arv1.Ignore {
			continue
		}
		msg := fmt.Sprintf("policy %q denied request: %s", pe.policy.Name, pe.msg)
		if pe.binding != "" {
			msg = fmt.Sprintf("policy '%s' with binding '%s' denied request: %s", pe.policy.Name, pe.binding, pe.msg)
		}
		if err == nil {
			err = status.Forbidden(d.a.Resource, d.a.Name, errors.New("admission request denied by policy"))
			err.Status.Message = msg
			if pe.reason != "" {
				err.Status.Reason = pe.reason
			}
			if err.Status.Details == nil {
				err.Status.Details = &meta.StatusDetails{}
			}
		}
		err.Status.Details.Causes = append(err.Status.Details.Causes, meta.StatusCause{Message: msg})
	}
	if err == nil {
		return nil
	}
	return err
}
