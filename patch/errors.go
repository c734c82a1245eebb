package patch

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// MaxJSONPatchOperations is the most operations a JSON patch may hold;
// kube-apiserver answers 413 beyond it.
const MaxJSONPatchOperations = 10000

// invalidRequestMessage is the message kube-apiserver builds for a 422
// through errors.NewGenericServerResponse: the cause is not shown.
const invalidRequestMessage = "the server rejected our request due to an error in our request"

// statusError carries the Status the client sees plus the error that
// caused it, for logs and errors.Is. errors.As finds the *status.Error.
type statusError struct {
	st    *status.Error
	cause error
}

func (e *statusError) Error() string   { return e.st.Error() }
func (e *statusError) Unwrap() []error { return []error{e.st, e.cause} }

func withCause(st *status.Error, cause error) error {
	if cause == nil {
		return st
	}
	return &statusError{st: st, cause: cause}
}

// badRequest is a 400 whose message is err's text, as
// errors.NewBadRequest(err.Error()) gives.
func badRequest(err error) error {
	return withCause(status.BadRequest(err.Error()), err)
}

// unprocessable is the 422 kube-apiserver returns when a JSON patch does
// not apply or a strategic merge patch breaks a rule the server checks:
// reason Invalid, a fixed message and empty details. The cause stays
// available to errors.Is and errors.As, not to the client.
func unprocessable(cause error) error {
	st := status.New(http.StatusUnprocessableEntity, meta.StatusReasonInvalid, invalidRequestMessage)
	st.Status.Details = &meta.StatusDetails{}
	return withCause(st, cause)
}

// internal is what kube-apiserver sends for an error that carries no
// Status: code 500, no reason, the error's text as the message.
func internal(err error) error {
	return withCause(status.New(http.StatusInternalServerError, meta.StatusReasonUnknown, err.Error()), err)
}

// tooManyOperations is the 413 for a JSON patch over the limit.
func tooManyOperations(n int) error {
	return status.RequestEntityTooLarge(fmt.Sprintf(
		"The allowed maximum operations in a JSON patch is %d, got %d", MaxJSONPatchOperations, n))
}

// InvalidResult is the 422 kube-apiserver answers when the patched
// document does not decode into the kind: an Invalid Status without kind
// or name whose one cause is an invalid value at field "patch", showing the
// patched document and the decoder's message. The apiserver should use it
// when decoding a patch result fails; the patch functions use it for
// results that are not JSON objects.
func InvalidResult(patched []byte, decodeErr error) error {
	fe := status.InvalidValue(status.NewPath("patch"), string(patched), decodeErr.Error())
	return withCause(status.Invalid(meta.GroupVersionKind{}, "", status.FieldErrors{fe}), decodeErr)
}

// UnsupportedPatchType is the 415 for a patch Content-Type the kind does
// not accept, listing the ones it does, as kube-apiserver words it.
func UnsupportedPatchType(contentType string, supported []string) error {
	return status.UnsupportedMediaType(contentType, supported)
}

// ErrNotObject is wrapped by the decoding error behind [InvalidResult]
// when a patch produces a JSON value that is not an object.
var ErrNotObject = errors.New("not a JSON object")

// notObject is the decoding error for a result v that is not an object,
// worded as encoding/json words it.
func notObject(v any) error {
	return &notObjectError{kind: jsonKind(v)}
}

type notObjectError struct{ kind string }

func (e *notObjectError) Error() string {
	return "json: cannot unmarshal " + e.kind + " into Go value of type map[string]interface {}"
}

func (e *notObjectError) Unwrap() error { return ErrNotObject }
