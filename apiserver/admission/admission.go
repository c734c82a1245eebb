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
	"crypto/rand"
	"errors"
	"fmt"

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
	// uid identifies the admission of one write attempt (see ID).
	uid string
	// Namespaced is set when the kind is namespaced.
	Namespaced bool
	// Versions is the kind in its other served versions, for admission
	// that sees objects in a version of its own (a webhook registered
	// for another version, matchPolicy Equivalent). Nil when no version
	// but the request's is known.
	Versions Versions
	// Reinvocation is shared by the mutating functions of one write (see
	// [Reinvocation]); nil outside Chain.Mutate.
	Reinvocation *Reinvocation

	// original is the object ReplaceObject first replaced (see there).
	original meta.Object
}

// ReplaceObject sets Object to obj, a new object a mutating function
// made of it (a webhook's patch applied, a policy's mutation). The
// object first replaced is kept as the one the write records in
// managedFields, as kube-apiserver records them before mutating
// admission: what webhooks and policies set is owned by no one. A
// function that changes Object in place instead is recorded as the
// request's.
func (a *Request) ReplaceObject(obj meta.Object) {
	if a.original == nil {
		a.original = a.Object
	}
	a.Object = obj
}

// Original is the object the first ReplaceObject replaced, nil when
// none was.
func (a *Request) Original() meta.Object { return a.original }

// ID identifies the admission of one write attempt, made when first
// asked for: every webhook and policy asked about it sees the same, as
// the uid of kube's AdmissionReview.
func (a *Request) ID() string {
	if a.uid == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80 // version 4, RFC 4122
		a.uid = fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
	}
	return a.uid
}

// Versions converts objects of one kind between its served versions.
type Versions interface {
	// Served lists the versions the kind is served in ("v1", ...).
	Served() []string
	// Convert returns obj, an object of the kind, in version; obj is not
	// changed.
	Convert(obj meta.Object, version string) (meta.Object, error)
	// New returns an empty object of the kind in version.
	New(version string) meta.Object
}

// Reinvocation lets mutating functions run again when functions after
// them changed the object, as kube-apiserver reinvokes admission: a
// function that finds the object changed since an earlier one asked to
// see its final form calls SetShouldReinvoke, and Chain.Mutate then runs
// every mutating function once more, IsReinvoke set. Functions keep what
// they need between the two passes with Value and SetValue.
type Reinvocation struct {
	reinvoke, should bool
	values           map[any]any
}

// IsReinvoke reports whether this is the second pass.
func (r *Reinvocation) IsReinvoke() bool { return r.reinvoke }

// SetShouldReinvoke asks for a second pass (ignored during it).
func (r *Reinvocation) SetShouldReinvoke() { r.should = true }

// ShouldReinvoke reports whether a second pass was asked for.
func (r *Reinvocation) ShouldReinvoke() bool { return r.should }

// Value returns what SetValue kept under key, or nil.
func (r *Reinvocation) Value(key any) any { return r.values[key] }

// SetValue keeps v under key for the rest of the write's admission.
func (r *Reinvocation) SetValue(key, v any) {
	if r.values == nil {
		r.values = map[any]any{}
	}
	r.values[key] = v
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
// mutating functions, and those once more when one of them asked to be
// reinvoked (see [Reinvocation]). It reports whether there were any of
// the latter, so that the caller can default what they changed (first
// changes nothing).
func (c *Chain) Mutate(ctx context.Context, gr meta.GroupResource, first Func, a *Request) (bool, error) {
	if first != nil {
		if err := Run(ctx, gr, a, []Func{first}); err != nil {
			return false, err
		}
	}
	if len(c.Mutating) == 0 {
		return false, nil
	}
	if a.Reinvocation == nil {
		a.Reinvocation = &Reinvocation{}
	}
	if err := Run(ctx, gr, a, c.Mutating); err != nil || !a.Reinvocation.should {
		return true, err
	}
	a.Reinvocation.reinvoke, a.Reinvocation.should = true, false
	return true, Run(ctx, gr, a, c.Mutating)
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
