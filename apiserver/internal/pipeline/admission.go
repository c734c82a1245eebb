package pipeline

import (
	"context"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
)

// admissionRequest describes the write's operation op of obj (nil on
// delete) over old (nil on create), both in the version of the request.
func (w *Write) admissionRequest(ctx context.Context, op admission.Operation, obj, old meta.Object) *admission.Request {
	r := w.Resource
	m := old
	if obj != nil {
		m = obj
	}
	om := m.GetObjectMeta()
	a := &admission.Request{
		Operation: op, Kind: r.Kind.GroupVersionKind(), Resource: r.GroupResource, Subresource: w.Subresource,
		Namespace: om.Namespace, Name: om.Name, Object: obj, OldObject: old, DryRun: w.DryRun,
		FieldManager: w.Manager, Options: w.options(op),
		Namespaced: r.Kind.Namespaced, Versions: r.AdmissionVersions(),
	}
	a.User, _ = auth.UserFrom(ctx)
	return a
}

// options are the options of the write's operation, from its request.
func (w *Write) options(op admission.Operation) any {
	if op == admission.Delete {
		return w.DeleteOptions
	}
	dry, fm, fv := w.Query.DryRun, w.Query.FieldManager, w.Query.FieldValidation
	if op == admission.Create {
		return &meta.CreateOptions{TypeMeta: meta.TypeMeta{Kind: "CreateOptions", APIVersion: "meta.k8s.io/v1"},
			DryRun: dry, FieldManager: fm, FieldValidation: fv}
	}
	return &meta.UpdateOptions{TypeMeta: meta.TypeMeta{Kind: "UpdateOptions", APIVersion: "meta.k8s.io/v1"},
		DryRun: dry, FieldManager: fm, FieldValidation: fv}
}

// admitDelete runs mutating, then validating admission for the deletion
// of the stored object old, which admission sees in the version of the
// request.
func (w *Write) admitDelete(ctx context.Context, old meta.Object) error {
	r := w.Resource
	old, err := w.inRequestVersion(old)
	if err != nil {
		return err
	}
	a := w.admissionRequest(ctx, admission.Delete, nil, old)
	if _, err := w.Admission.Mutate(ctx, r.GroupResource, r.Kind.Admit, a); err != nil {
		return err
	}
	return w.Admission.Validate(ctx, r.GroupResource, a)
}
