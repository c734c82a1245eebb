package apiserver

import (
	"context"
	"errors"

	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Operation names the kind of write admission is asked about.
type Operation string

// The operations admission sees. Patches and applies are updates (or
// creates, when they create the object).
const (
	OperationCreate Operation = "CREATE"
	OperationUpdate Operation = "UPDATE"
	OperationDelete Operation = "DELETE"
)

// AdmissionRequest describes one write to admission functions. For a
// kind served in several versions, Object and OldObject are in the
// version of the request, which Kind names, as kube-apiserver's
// in-process admission sees a custom resource.
type AdmissionRequest struct {
	Operation Operation
	// Kind is the kind of Object and OldObject, in the version of the
	// request.
	Kind        meta.GroupVersionKind
	Resource    meta.GroupResource
	Subresource string // "status", "scale" or ""
	Namespace   string
	Name        string
	// Object is the object about to be stored; mutating functions may
	// change it in place. Nil on delete.
	Object meta.Object
	// OldObject is the stored object on update and delete, nil on
	// create. It must not be changed.
	OldObject meta.Object
	// DryRun is set when the request asked for a dry run: admission runs
	// but nothing is stored, so functions with side effects should skip
	// them.
	DryRun bool
	// User is who made the request (the impersonated user when it
	// impersonated one); nil when the server authenticates no one.
	User *auth.User
	// FieldManager is the manager the write is recorded under in
	// managedFields: the fieldManager parameter, or the client's
	// User-Agent product. Empty on delete.
	FieldManager string
	// Options are the options of the operation performed, which may
	// differ from the ones the client sent (a patch is an update, or a
	// create when it creates the object): *meta.CreateOptions,
	// *meta.UpdateOptions or *meta.DeleteOptions.
	Options any
}

// AdmissionFunc admits or rejects a write. Mutating functions run after
// defaulting and before validation; validating ones after validation,
// just before the store. The first error rejects the request: a
// status.Error (from package status) is answered as it is, any other
// error as 403 Forbidden, as kube-apiserver answers an admission denial.
type AdmissionFunc func(ctx context.Context, req *AdmissionRequest) error

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
		Operation: op, Kind: r.kind.gvk(), Resource: r.gr, Subresource: w.req.subresource,
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

// mutate runs the kind's Admit, then the mutating admission functions.
// It reports whether there were any of the latter, so that the caller
// can default what they changed (Admit changes nothing).
func (s *core) mutate(ctx context.Context, r *resource, a *AdmissionRequest) (bool, error) {
	if r.kind.Admit != nil {
		if err := runAdmission(ctx, r, a, []AdmissionFunc{r.kind.Admit}); err != nil {
			return false, err
		}
	}
	return len(s.opts.MutatingAdmission) > 0, runAdmission(ctx, r, a, s.opts.MutatingAdmission)
}

// admit runs the validating admission functions.
func (s *core) admit(ctx context.Context, r *resource, a *AdmissionRequest) error {
	return runAdmission(ctx, r, a, s.opts.ValidatingAdmission)
}

func runAdmission(ctx context.Context, r *resource, a *AdmissionRequest, funcs []AdmissionFunc) error {
	if a.User == nil {
		a.User, _ = auth.UserFrom(ctx)
	}
	for _, f := range funcs {
		if err := f(ctx, a); err != nil {
			var se *status.Error
			if errors.As(err, &se) {
				return err
			}
			return status.Forbidden(r.gr, a.Name, err)
		}
	}
	return nil
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
	if _, err := w.h.mutate(ctx, r, a); err != nil {
		return err
	}
	return w.h.admit(ctx, r, a)
}
