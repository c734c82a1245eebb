package status

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/kapi-dev/kapi/meta"
)

// Error is an error that carries a Kubernetes Status.
type Error struct {
	Status meta.Status
}

// Error returns the status message.
func (e *Error) Error() string { return e.Status.Message }

// New returns an Error with the given code, reason and message; use it for
// reasons without a constructor of their own.
func New(code int32, reason meta.StatusReason, message string) *Error {
	return &Error{Status: meta.Status{
		TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   meta.StatusFailure,
		Code:     code,
		Reason:   reason,
		Message:  message,
	}}
}

func withDetails(e *Error, gr meta.GroupResource, name string) *Error {
	e.Status.Details = &meta.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource}
	return e
}

// FromError returns the Status an error stands for: its own when it is (or
// wraps) an [*Error], an InternalError otherwise.
func FromError(err error) meta.Status {
	var se *Error
	if errors.As(err, &se) {
		return se.Status
	}
	return InternalError(err).Status
}

// ReasonOf returns the reason of err, or StatusReasonUnknown when err
// carries no Status.
func ReasonOf(err error) meta.StatusReason {
	var se *Error
	if errors.As(err, &se) {
		return se.Status.Reason
	}
	return meta.StatusReasonUnknown
}

// CodeOf returns the HTTP code of err, 500 when err carries no Status.
func CodeOf(err error) int32 {
	var se *Error
	if errors.As(err, &se) {
		return se.Status.Code
	}
	return http.StatusInternalServerError
}

// BadRequest is a 400 for a request the server cannot understand.
func BadRequest(message string) *Error {
	return New(http.StatusBadRequest, meta.StatusReasonBadRequest, message)
}

// Unauthorized is a 401: the client must authenticate.
func Unauthorized(message string) *Error {
	if message == "" {
		message = "Unauthorized"
	}
	return New(http.StatusUnauthorized, meta.StatusReasonUnauthorized, message)
}

// Forbidden is a 403: the user may not do this to the named object.
func Forbidden(gr meta.GroupResource, name string, err error) *Error {
	var msg string
	switch {
	case gr.Group == "" && gr.Resource == "":
		msg = fmt.Sprintf("forbidden: %v", err)
	case name == "":
		msg = fmt.Sprintf("%s is forbidden: %v", gr, err)
	default:
		msg = fmt.Sprintf("%s %q is forbidden: %v", gr, name, err)
	}
	return withDetails(New(http.StatusForbidden, meta.StatusReasonForbidden, msg), gr, name)
}

// NotFound is a 404 for a named object that does not exist.
func NotFound(gr meta.GroupResource, name string) *Error {
	return withDetails(New(http.StatusNotFound, meta.StatusReasonNotFound,
		fmt.Sprintf("%s %q not found", gr, name)), gr, name)
}

// NotFoundPath is a 404 for a path that names no resource. Its details are
// empty but present, as in kube-apiserver's answer.
func NotFoundPath(message string) *Error {
	if message == "" {
		message = "the server could not find the requested resource"
	}
	e := New(http.StatusNotFound, meta.StatusReasonNotFound, message)
	e.Status.Details = &meta.StatusDetails{}
	return e
}

// AlreadyExists is a 409 for a create whose name is taken.
func AlreadyExists(gr meta.GroupResource, name string) *Error {
	return withDetails(New(http.StatusConflict, meta.StatusReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", gr, name)), gr, name)
}

// Conflict is a 409 for a write that lost a race, typically a stale
// resourceVersion.
func Conflict(gr meta.GroupResource, name string, err error) *Error {
	return withDetails(New(http.StatusConflict, meta.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %v", gr, name, err)), gr, name)
}

// OptimisticLockMessage is the reason kube-apiserver gives in a Conflict
// caused by a stale resourceVersion.
const OptimisticLockMessage = "the object has been modified; please apply your changes to the latest version and try again"

// Invalid is a 422 listing every field error. Each error is a cause; the
// message names each distinct error once, as kube-apiserver's does.
func Invalid(gk meta.GroupVersionKind, name string, errs FieldErrors) *Error {
	causes := make([]meta.StatusCause, 0, len(errs))
	msgs := make([]string, 0, len(errs))
	seen := make(map[string]bool, len(errs))
	for _, fe := range errs {
		causes = append(causes, meta.StatusCause{Type: fe.Type, Message: fe.ErrorBody(), Field: fe.Field})
		if m := fe.Error(); !seen[m] {
			seen[m] = true
			msgs = append(msgs, m)
		}
	}
	kind := gk.Kind
	if gk.Group != "" {
		kind = gk.Kind + "." + gk.Group
	}
	msg := fmt.Sprintf("%s %q is invalid", kind, name)
	switch len(msgs) {
	case 0:
	case 1:
		msg += ": " + msgs[0]
	default:
		msg += ": [" + strings.Join(msgs, ", ") + "]"
	}
	e := New(http.StatusUnprocessableEntity, meta.StatusReasonInvalid, msg)
	e.Status.Details = &meta.StatusDetails{Name: name, Group: gk.Group, Kind: gk.Kind, Causes: causes}
	return e
}

// Gone is a 410: the requested resource version is no longer available.
func Gone(message string) *Error {
	return New(http.StatusGone, meta.StatusReasonGone, message)
}

// Expired is a 410 with reason Expired, used for compacted resource
// versions in lists and watches.
func Expired(message string) *Error {
	return New(http.StatusGone, meta.StatusReasonExpired, message)
}

// Timeout is a 504 telling the client to retry after the given seconds.
func Timeout(message string, retryAfterSeconds int) *Error {
	if message == "" {
		message = "Timeout: request did not complete within the allowed duration"
	}
	e := New(http.StatusGatewayTimeout, meta.StatusReasonTimeout, message)
	e.Status.Details = &meta.StatusDetails{RetryAfterSeconds: int32(retryAfterSeconds)}
	return e
}

// ServerTimeout is a 500 with reason ServerTimeout: the server could not
// finish the operation in time.
func ServerTimeout(gr meta.GroupResource, operation string, retryAfterSeconds int) *Error {
	e := New(http.StatusInternalServerError, meta.StatusReasonServerTimeout,
		fmt.Sprintf("The %s operation against %s could not be completed at this time, please try again.", operation, gr))
	e.Status.Details = &meta.StatusDetails{Group: gr.Group, Kind: gr.Resource, Name: operation, RetryAfterSeconds: int32(retryAfterSeconds)}
	return e
}

// TooManyRequests is a 429 telling the client to retry after the given
// seconds.
func TooManyRequests(message string, retryAfterSeconds int) *Error {
	if message == "" {
		message = "Too many requests, please try again later."
	}
	e := New(http.StatusTooManyRequests, meta.StatusReasonTooManyRequests, message)
	e.Status.Details = &meta.StatusDetails{RetryAfterSeconds: int32(retryAfterSeconds)}
	return e
}

// ServiceUnavailable is a 503.
func ServiceUnavailable(message string) *Error {
	return New(http.StatusServiceUnavailable, meta.StatusReasonServiceUnavailable, message)
}

// MethodNotAllowed is a 405 for a verb the resource does not support.
func MethodNotAllowed(gr meta.GroupResource, action string) *Error {
	return withDetails(New(http.StatusMethodNotAllowed, meta.StatusReasonMethodNotAllowed,
		fmt.Sprintf("%s is not supported on resources of kind %q", action, gr)), gr, "")
}

// MethodNotAllowedPath is kube-apiserver's 405 for a method a path
// outside the resources does not serve (POST /version).
func MethodNotAllowedPath() *Error {
	e := New(http.StatusMethodNotAllowed, meta.StatusReasonMethodNotAllowed,
		"the server does not allow this method on the requested resource")
	e.Status.Details = &meta.StatusDetails{}
	return e
}

// NotAcceptable is a 406: no media type in Accept can be served.
func NotAcceptable(supported []string) *Error {
	return New(http.StatusNotAcceptable, meta.StatusReasonNotAcceptable,
		fmt.Sprintf("only the following media types are accepted: %s", strings.Join(supported, ", ")))
}

// UnsupportedMediaType is a 415: the request body's Content-Type cannot be
// decoded.
func UnsupportedMediaType(contentType string, supported []string) *Error {
	return New(http.StatusUnsupportedMediaType, meta.StatusReasonUnsupportedMediaType,
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s", strings.Join(supported, ", ")))
}

// RequestEntityTooLarge is a 413.
func RequestEntityTooLarge(message string) *Error {
	return New(http.StatusRequestEntityTooLarge, meta.StatusReasonRequestEntityTooLarge, "Request entity too large: "+message)
}

// InternalError is a 500 wrapping an unexpected error.
func InternalError(err error) *Error {
	e := New(http.StatusInternalServerError, meta.StatusReasonInternalError,
		fmt.Sprintf("Internal error occurred: %v", err))
	e.Status.Details = &meta.StatusDetails{Causes: []meta.StatusCause{{Message: fmt.Sprint(err)}}}
	return e
}

func is(err error, reason meta.StatusReason) bool { return ReasonOf(err) == reason }

// IsBadRequest reports whether err is a BadRequest.
func IsBadRequest(err error) bool { return is(err, meta.StatusReasonBadRequest) }

// IsUnauthorized reports whether err is an Unauthorized.
func IsUnauthorized(err error) bool { return is(err, meta.StatusReasonUnauthorized) }

// IsForbidden reports whether err is a Forbidden.
func IsForbidden(err error) bool { return is(err, meta.StatusReasonForbidden) }

// IsNotFound reports whether err is a NotFound.
func IsNotFound(err error) bool { return is(err, meta.StatusReasonNotFound) }

// IsAlreadyExists reports whether err is an AlreadyExists.
func IsAlreadyExists(err error) bool { return is(err, meta.StatusReasonAlreadyExists) }

// IsConflict reports whether err is a Conflict.
func IsConflict(err error) bool { return is(err, meta.StatusReasonConflict) }

// IsInvalid reports whether err is an Invalid.
func IsInvalid(err error) bool { return is(err, meta.StatusReasonInvalid) }

// IsGone reports whether err is a Gone.
func IsGone(err error) bool { return is(err, meta.StatusReasonGone) }

// IsExpired reports whether err is an Expired.
func IsExpired(err error) bool { return is(err, meta.StatusReasonExpired) }

// IsTimeout reports whether err is a Timeout.
func IsTimeout(err error) bool { return is(err, meta.StatusReasonTimeout) }

// IsServerTimeout reports whether err is a ServerTimeout.
func IsServerTimeout(err error) bool { return is(err, meta.StatusReasonServerTimeout) }

// IsTooManyRequests reports whether err is a TooManyRequests.
func IsTooManyRequests(err error) bool { return is(err, meta.StatusReasonTooManyRequests) }

// IsServiceUnavailable reports whether err is a ServiceUnavailable.
func IsServiceUnavailable(err error) bool { return is(err, meta.StatusReasonServiceUnavailable) }

// IsMethodNotAllowed reports whether err is a MethodNotAllowed.
func IsMethodNotAllowed(err error) bool { return is(err, meta.StatusReasonMethodNotAllowed) }

// IsNotAcceptable reports whether err is a NotAcceptable.
func IsNotAcceptable(err error) bool { return is(err, meta.StatusReasonNotAcceptable) }

// IsUnsupportedMediaType reports whether err is an UnsupportedMediaType.
func IsUnsupportedMediaType(err error) bool { return is(err, meta.StatusReasonUnsupportedMediaType) }

// IsRequestEntityTooLarge reports whether err is a RequestEntityTooLarge.
func IsRequestEntityTooLarge(err error) bool {
	return is(err, meta.StatusReasonRequestEntityTooLarge)
}

// IsInternalError reports whether err is an InternalError.
func IsInternalError(err error) bool { return is(err, meta.StatusReasonInternalError) }
