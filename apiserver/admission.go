package apiserver

import (
	"context"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
)

// The admission types live in package admission, the write pipeline's
// admission step; they keep their names here for hosts.
type (
	Operation        = admission.Operation
	AdmissionRequest = admission.Request
	AdmissionFunc    = admission.Func
)

// The operations admission sees. Patches and applies are updates (or
// creates, when they create the object).
const (
	OperationCreate = admission.Create
	OperationUpdate = admission.Update
	OperationDelete = admission.Delete
)

// admissionRequest describes the write's operation op of obj (nil on
// delete) over old (nil on create), both in the version of the request.
func (w *write) admissionRequest(op Operation, obj, old meta.Object) *AdmissionRequest {
	r := w.h.r
	m := old
	if obj != nil {
		m = obj
	}
	om := m.GetObjectMeta()
	a := &AdmissionRequest{
		Operation: op, Kind: r.Kind.GroupVersionKind(), Resource: r.GroupResource, Subresource: w.req.subresource,
		Namespace: om.Namespace, Name: om.Name, Object: obj, OldObject: old, DryRun: w.dryRun,
		FieldManager: w.manager, Options: w.options(op),
	}
	a.User, _ = auth.UserFrom(w.req.r.Context())
	return a
}

// options are the options of the write's operation, from its request.
func (w *write) options(op Operation) any {
	if op == OperationDelete {
		return w.deleteOptions
	}
	q := w.req.r.URL.Query()
	dry, fm, fv := q["dryRun"], q.Get("fieldManager"), q.Get("fieldValidation")
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
	r := w.h.r
	old, err := w.inRequestVersion(old)
	if err != nil {
		return err
	}
	a := w.admissionRequest(OperationDelete, nil, old)
	if _, err := w.h.admission.Mutate(ctx, r.GroupResource, r.Kind.Admit, a); err != nil {
		return err
	}
	return w.h.admission.Validate(ctx, r.GroupResource, a)
}
