package apiserver

import (
	"context"

	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
)

// admissionRequest describes the write's operation op of obj (nil on
// delete) over old (nil on create), both in the version of the request.
func (w *write) admissionRequest(ctx context.Context, op Operation, obj, old meta.Object) *AdmissionRequest {
	r := w.r
	m := old
	if obj != nil {
		m = obj
	}
	om := m.GetObjectMeta()
	a := &AdmissionRequest{
		Operation: op, Kind: r.Kind.GroupVersionKind(), Resource: r.GroupResource, Subresource: w.subresource,
		Namespace: om.Namespace, Name: om.Name, Object: obj, OldObject: old, DryRun: w.dryRun,
		FieldManager: w.manager, Options: w.options(op),
	}
	a.User, _ = auth.UserFrom(ctx)
	return a
}

// options are the options of the write's operation, from its request.
func (w *write) options(op Operation) any {
	if op == OperationDelete {
		return w.deleteOptions
	}
	dry, fm, fv := w.query.dryRun, w.query.fieldManager, w.query.fieldValidation
	if op == OperationCreate {
		return &meta.CreateOptions{TypeMeta: meta.TypeMeta{Kind: "CreateOptions", APIVersion: "meta.k8s.io/v1"},
			DryRun: dry, FieldManager: fm, FieldValidation: fv}
	}
	return &meta.UpdateOptions{TypeMeta: meta.TypeMeta{Kind: "UpdateOptions", APIVersion: "meta.k8s.io/v1"},
		DryRun: dry, FieldManager: fm, FieldValidation: fv}
}

// admitDelete runs mutating, then validating admission for the deletion
// of the stored object old, which admission sees in the version of the
// request.
func (w *write) admitDelete(ctx context.Context, old meta.Object) error {
	r := w.r
	old, err := w.inRequestVersion(old)
	if err != nil {
		return err
	}
	a := w.admissionRequest(ctx, OperationDelete, nil, old)
	if _, err := w.chain.Mutate(ctx, r.GroupResource, r.Kind.Admit, a); err != nil {
		return err
	}
	return w.chain.Validate(ctx, r.GroupResource, a)
}
