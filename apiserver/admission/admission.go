// Package admission is the admission step of the write pipeline: the
// [Request] a write is described by, and the [Chain] of functions that
// may change it (mutating) and then admit or reject it (validating).
//
// In the request path it sits inside the write: mutating admission runs
// after the object is built and defaulted, before generateName and
// validation (and the schema's defaults run again on what it changed);
// validating admission after validation, just before the store. A delete
// runs both on the stored object. Package apiserver builds a Chain from
// its Options (MutatingAdmission, ValidatingAdmission) and runs a kind's
// own Admit first; webhooks and admission policies join as further
// functions of the same chain.
package admission

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
	Create Operation = "CREATE"
	Update Operation = "UPDATE"
	Delete Operation = "DELETE"
)

// Request describes one write to admission functions. For a
// kind served in several versions, Object and OldObject are in the
// version of the request, which Kind names, as kube-apiserver's
// in-process admission sees a custom resource.
type Request struct {
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

// Func admits or rejects a write. Mutating functions run after
// defaulting and before validation; validating ones after validation,
// just before the store. The first error rejects the request: a
// status.Error (from package status) is answered as it is, any other
// error as 403 Forbidden, as kube-apiserver answers an admission denial.
type Func func(ctx context.Context, req *Request) error

// Chain is the admission functions of a server, in the order they run.
type Chain struct {
	// Mutating functions may change the object.
	Mutating []Func
	// Validating functions must not change it.
	Validating []Func
}

// Mutate runs first (a kind's own function, nil for none), then the
// mutating functions. It reports whether there were any of the latter, so
// that the caller can default what they changed (first changes nothing).
func (c *Chain) Mutate(ctx context.Context, gr meta.GroupResource, first Func, a *Request) (bool, error) {
	if first != nil {
		if err := Run(ctx, gr, a, []Func{first}); err != nil {
			return false, err
		}
	}
	return len(c.Mutating) > 0, Run(ctx, gr, a, c.Mutating)
}

// Validate runs the validating functions.
func (c *Chain) Validate(ctx context.Context, gr meta.GroupResource, a *Request) error {
	return Run(ctx, gr, a, c.Validating)
}

// Run runs funcs in order on a write of gr; the first error rejects it:
// a status.Error as it is, any other as 403 Forbidden, as kube-apiserver
// answers an admission denial. A request without a user gets the one on
// ctx.
func Run(ctx context.Context, gr meta.GroupResource, a *Request, funcs []Func) error {
	if a.User == nil {
		a.User, _ = auth.UserFrom(ctx)
	}
	for _, f := range funcs {
		if err := f(ctx, a); err != nil {
			var se *status.Error
			if errors.As(err, &se) {
				return err
			}
			return status.Forbidden(gr, a.Name, err)
		}
	}
	return nil
}
