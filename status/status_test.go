package status_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

var (
	widgets   = meta.GroupResource{Group: "stable.example.com", Resource: "widgets"}
	widgetGVK = meta.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "Widget"}
)

// predicates lists every IsX predicate by the reason it stands for.
var predicates = map[meta.StatusReason]func(error) bool{
	meta.StatusReasonBadRequest:            status.IsBadRequest,
	meta.StatusReasonUnauthorized:          status.IsUnauthorized,
	meta.StatusReasonForbidden:             status.IsForbidden,
	meta.StatusReasonNotFound:              status.IsNotFound,
	meta.StatusReasonAlreadyExists:         status.IsAlreadyExists,
	meta.StatusReasonConflict:              status.IsConflict,
	meta.StatusReasonInvalid:               status.IsInvalid,
	meta.StatusReasonGone:                  status.IsGone,
	meta.StatusReasonExpired:               status.IsExpired,
	meta.StatusReasonTimeout:               status.IsTimeout,
	meta.StatusReasonServerTimeout:         status.IsServerTimeout,
	meta.StatusReasonTooManyRequests:       status.IsTooManyRequests,
	meta.StatusReasonServiceUnavailable:    status.IsServiceUnavailable,
	meta.StatusReasonMethodNotAllowed:      status.IsMethodNotAllowed,
	meta.StatusReasonNotAcceptable:         status.IsNotAcceptable,
	meta.StatusReasonUnsupportedMediaType:  status.IsUnsupportedMediaType,
	meta.StatusReasonRequestEntityTooLarge: status.IsRequestEntityTooLarge,
	meta.StatusReasonInternalError:         status.IsInternalError,
}

// constructorCase is one constructor call and everything the Status it
// builds must carry. wire is the body kube-apiserver sends for the same
// error, as produced by k8s.io/apimachinery v0.37.2's
// k8s.io/apimachinery/pkg/api/errors constructors encoded by its JSON
// serializer (encoding/json's Encoder, which escapes HTML and appends a
// newline).
type constructorCase struct {
	name    string
	err     *status.Error
	code    int32
	reason  meta.StatusReason
	message string
	details *meta.StatusDetails
	wire    string
}

func constructorCases() []constructorCase {
	return []constructorCase{
		{
			name:    "BadRequest",
			err:     status.BadRequest("bad <things> & stuff"),
			code:    http.StatusBadRequest,
			reason:  meta.StatusReasonBadRequest,
			message: "bad <things> & stuff",
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"bad \u003cthings\u003e \u0026 stuff","reason":"BadRequest","code":400}`,
		},
		{
			// kube-apiserver's authentication filter sends
			// NewUnauthorized("Unauthorized").
			name:    "Unauthorized default message",
			err:     status.Unauthorized(""),
			code:    http.StatusUnauthorized,
			reason:  meta.StatusReasonUnauthorized,
			message: "Unauthorized",
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`,
		},
		{
			name:    "Unauthorized own message",
			err:     status.Unauthorized("token expired"),
			code:    http.StatusUnauthorized,
			reason:  meta.StatusReasonUnauthorized,
			message: "token expired",
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"token expired","reason":"Unauthorized","code":401}`,
		},
		{
			name:    "Forbidden named",
			err:     status.Forbidden(widgets, "foo", errors.New(`User "bob" cannot get resource "widgets"`)),
			code:    http.StatusForbidden,
			reason:  meta.StatusReasonForbidden,
			message: `widgets.stable.example.com "foo" is forbidden: User "bob" cannot get resource "widgets"`,
			details: &meta.StatusDetails{Name: "foo", Group: "stable.example.com", Kind: "widgets"},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.stable.example.com \"foo\" is forbidden: User \"bob\" cannot get resource \"widgets\"","reason":"Forbidden","details":{"name":"foo","group":"stable.example.com","kind":"widgets"},"code":403}`,
		},
		{
			name:    "Forbidden collection",
			err:     status.Forbidden(widgets, "", errors.New("x")),
			code:    http.StatusForbidden,
			reason:  meta.StatusReasonForbidden,
			message: `widgets.stable.example.com is forbidden: x`,
			details: &meta.StatusDetails{Group: "stable.example.com", Kind: "widgets"},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.stable.example.com is forbidden: x","reason":"Forbidden","details":{"group":"stable.example.com","kind":"widgets"},"code":403}`,
		},
		{
			// With no resource, apimachinery says "forbidden: …" even
			// when a name is given.
			name:    "Forbidden without resource",
			err:     status.Forbidden(meta.GroupResource{}, "foo", errors.New("x")),
			code:    http.StatusForbidden,
			reason:  meta.StatusReasonForbidden,
			message: `forbidden: x`,
			details: &meta.StatusDetails{Name: "foo"},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: x","reason":"Forbidden","details":{"name":"foo"},"code":403}`,
		},
		{
			name:    "NotFound",
			err:     status.NotFound(widgets, "foo"),
			code:    http.StatusNotFound,
			reason:  meta.StatusReasonNotFound,
			message: `widgets.stable.example.com "foo" not found`,
			details: &meta.StatusDetails{Name: "foo", Group: "stable.example.com", Kind: "widgets"},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.stable.example.com \"foo\" not found","reason":"NotFound","details":{"name":"foo","group":"stable.example.com","kind":"widgets"},"code":404}`,
		},
		{
			name:    "NotFound core group",
			err:     status.NotFound(meta.GroupResource{Resource: "pods"}, "foo"),
			code:    http.StatusNotFound,
			reason:  meta.StatusReasonNotFound,
			message: `pods "foo" not found`,
			details: &meta.StatusDetails{Name: "foo", Kind: "pods"},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"foo\" not found","reason":"NotFound","details":{"name":"foo","kind":"pods"},"code":404}`,
		},
		{
			// kube-apiserver answers an unknown path with
			// NewGenericServerResponse(404, …), whose details are empty
			// but present.
			name:    "NotFoundPath",
			err:     status.NotFoundPath(""),
			code:    http.StatusNotFound,
			reason:  meta.StatusReasonNotFound,
			message: "the server could not find the requested resource",
			details: &meta.StatusDetails{},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`,
		},
		{
			name:    "AlreadyExists",
			err:     status.AlreadyExists(widgets, "foo"),
			code:    http.StatusConflict,
			reason:  meta.StatusReasonAlreadyExists,
			message: `widgets.stable.example.com "foo" already exists`,
			details: &meta.StatusDetails{Name: "foo", Group: "stable.example.com", Kind: "widgets"},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.stable.example.com \"foo\" already exists","reason":"AlreadyExists","details":{"name":"foo","group":"stable.example.com","kind":"widgets"},"code":409}`,
		},
		{
			name:    "Conflict",
			err:     status.Conflict(widgets, "foo", errors.New(status.OptimisticLockMessage)),
			code:    http.StatusConflict,
			reason:  meta.StatusReasonConflict,
			message: `Operation cannot be fulfilled on widgets.stable.example.com "foo": the object has been modified; please apply your changes to the latest version and try again`,
			details: &meta.StatusDetails{Name: "foo", Group: "stable.example.com", Kind: "widgets"},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on widgets.stable.example.com \"foo\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"foo","group":"stable.example.com","kind":"widgets"},"code":409}`,
		},
		{
			name: "Invalid one cause",
			err: status.Invalid(widgetGVK, "foo", status.FieldErrors{
				status.InvalidValue(status.NewPath("spec", "replicas"), 5000, "must be less than or equal to 1000"),
			}),
			code:    http.StatusUnprocessableEntity,
			reason:  meta.StatusReasonInvalid,
			message: `Widget.stable.example.com "foo" is invalid: spec.replicas: Invalid value: 5000: must be less than or equal to 1000`,
			details: &meta.StatusDetails{Name: "foo", Group: "stable.example.com", Kind: "Widget", Causes: []meta.StatusCause{
				{Type: meta.CauseTypeFieldValueInvalid, Message: "Invalid value: 5000: must be less than or equal to 1000", Field: "spec.replicas"},
			}},
			wire: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Widget.stable.example.com \"foo\" is invalid: spec.replicas: Invalid value: 5000: must be less than or equal to 1000","reason":"Invalid","details":{"name":"foo","group":"stable.example.com","kind":"Widget","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: 5000: must be less than or equal to 1000","field":"spec.replicas"}]},"code":422}`,
		},
		{
			// Several causes are bracketed; a message repeated word for
			// word appears once in the message (as field.ErrorList's
			// ToAggregate does) but every cause is kept.
			name: "Invalid several causes",
			err: status.Invalid(widgetGVK, "foo", status.FieldErrors{
				status.Required(status.NewPath("spec", "color"), ""),
				status.NotSupported(status.NewPath("spec", "size"), "huge", []string{"small", "large"}),
				status.Required(status.NewPath("spec", "color"), ""),
			}),
			code:    http.StatusUnprocessableEntity,
			reason:  meta.StatusReasonInvalid,
			message: `Widget.stable.example.com "foo" is invalid: [spec.color: Required value, spec.size: Unsupported value: "huge": supported values: "small", "large"]`,
			details: &meta.StatusDetails{Name: "foo", Group: "stable.example.com", Kind: "Widget", Causes: []meta.StatusCause{
				{Type: meta.CauseTypeFieldValueRequired, Message: "Required value", Field: "spec.color"},
				{Type: meta.CauseTypeFieldValueNotSupported, Message: `Unsupported value: "huge": supported values: "small", "large"`, Field: "spec.size"},
				{Type: meta.CauseTypeFieldValueRequired, Message: "Required value", Field: "spec.color"},
			}},
			wire: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Widget.stable.example.com \"foo\" is invalid: [spec.color: Required value, spec.size: Unsupported value: \"huge\": supported values: \"small\", \"large\"]","reason":"Invalid","details":{"name":"foo","group":"stable.example.com","kind":"Widget","causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.color"},{"reason":"FieldValueNotSupported","message":"Unsupported value: \"huge\": supported values: \"small\", \"large\"","field":"spec.size"},{"reason":"FieldValueRequired","message":"Required value","field":"spec.color"}]},"code":422}`,
		},
		{
			name:    "Invalid no causes",
			err:     status.Invalid(widgetGVK, "foo", nil),
			code:    http.StatusUnprocessableEntity,
			reason:  meta.StatusReasonInvalid,
			message: `Widget.stable.example.com "foo" is invalid`,
			details: &meta.StatusDetails{Name: "foo", Group: "stable.example.com", Kind: "Widget"},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Widget.stable.example.com \"foo\" is invalid","reason":"Invalid","details":{"name":"foo","group":"stable.example.com","kind":"Widget"},"code":422}`,
		},
		{
			name:    "Invalid core group",
			err:     status.Invalid(meta.GroupVersionKind{Version: "v1", Kind: "Pod"}, "foo", nil),
			code:    http.StatusUnprocessableEntity,
			reason:  meta.StatusReasonInvalid,
			message: `Pod "foo" is invalid`,
			details: &meta.StatusDetails{Name: "foo", Kind: "Pod"},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Pod \"foo\" is invalid","reason":"Invalid","details":{"name":"foo","kind":"Pod"},"code":422}`,
		},
		{
			name:    "Gone",
			err:     status.Gone("too old resource version: 1 (5)"),
			code:    http.StatusGone,
			reason:  meta.StatusReasonGone,
			message: "too old resource version: 1 (5)",
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Gone","code":410}`,
		},
		{
			name:    "Expired",
			err:     status.Expired("too old resource version: 1 (5)"),
			code:    http.StatusGone,
			reason:  meta.StatusReasonExpired,
			message: "too old resource version: 1 (5)",
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}`,
		},
		{
			// The same bytes as NewTimeoutError("request did not
			// complete within the allowed duration", 0): details present
			// but empty.
			name:    "Timeout default message",
			err:     status.Timeout("", 0),
			code:    http.StatusGatewayTimeout,
			reason:  meta.StatusReasonTimeout,
			message: "Timeout: request did not complete within the allowed duration",
			details: &meta.StatusDetails{},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: request did not complete within the allowed duration","reason":"Timeout","details":{},"code":504}`,
		},
		{
			// kapi's Timeout takes the whole message (no "Timeout: "
			// prefix is added, unlike NewTimeoutError).
			name:    "Timeout retry after",
			err:     status.Timeout("Timeout: Too large resource version: 10, current: 5", 1),
			code:    http.StatusGatewayTimeout,
			reason:  meta.StatusReasonTimeout,
			message: "Timeout: Too large resource version: 10, current: 5",
			details: &meta.StatusDetails{RetryAfterSeconds: 1},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 10, current: 5","reason":"Timeout","details":{"retryAfterSeconds":1},"code":504}`,
		},
		{
			name:    "ServerTimeout",
			err:     status.ServerTimeout(widgets, "create", 2),
			code:    http.StatusInternalServerError,
			reason:  meta.StatusReasonServerTimeout,
			message: "The create operation against widgets.stable.example.com could not be completed at this time, please try again.",
			details: &meta.StatusDetails{Name: "create", Group: "stable.example.com", Kind: "widgets", RetryAfterSeconds: 2},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The create operation against widgets.stable.example.com could not be completed at this time, please try again.","reason":"ServerTimeout","details":{"name":"create","group":"stable.example.com","kind":"widgets","retryAfterSeconds":2},"code":500}`,
		},
		{
			name:    "TooManyRequests default message",
			err:     status.TooManyRequests("", 1),
			code:    http.StatusTooManyRequests,
			reason:  meta.StatusReasonTooManyRequests,
			message: "Too many requests, please try again later.",
			details: &meta.StatusDetails{RetryAfterSeconds: 1},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too many requests, please try again later.","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`,
		},
		{
			name:    "ServiceUnavailable",
			err:     status.ServiceUnavailable("storage is down"),
			code:    http.StatusServiceUnavailable,
			reason:  meta.StatusReasonServiceUnavailable,
			message: "storage is down",
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"storage is down","reason":"ServiceUnavailable","code":503}`,
		},
		{
			name:    "MethodNotAllowed",
			err:     status.MethodNotAllowed(widgets, "deletecollection"),
			code:    http.StatusMethodNotAllowed,
			reason:  meta.StatusReasonMethodNotAllowed,
			message: `deletecollection is not supported on resources of kind "widgets.stable.example.com"`,
			details: &meta.StatusDetails{Group: "stable.example.com", Kind: "widgets"},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deletecollection is not supported on resources of kind \"widgets.stable.example.com\"","reason":"MethodNotAllowed","details":{"group":"stable.example.com","kind":"widgets"},"code":405}`,
		},
		{
			// k8s.io/apiserver/pkg/endpoints/handlers/negotiation's
			// errNotAcceptable.
			name:    "NotAcceptable",
			err:     status.NotAcceptable([]string{"application/json", "application/yaml"}),
			code:    http.StatusNotAcceptable,
			reason:  meta.StatusReasonNotAcceptable,
			message: "only the following media types are accepted: application/json, application/yaml",
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"only the following media types are accepted: application/json, application/yaml","reason":"NotAcceptable","code":406}`,
		},
		{
			// …negotiation's errUnsupportedMediaType.
			name:    "UnsupportedMediaType",
			err:     status.UnsupportedMediaType("text/plain", []string{"application/json", "application/yaml"}),
			code:    http.StatusUnsupportedMediaType,
			reason:  meta.StatusReasonUnsupportedMediaType,
			message: "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml",
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml","reason":"UnsupportedMediaType","code":415}`,
		},
		{
			name:    "RequestEntityTooLarge",
			err:     status.RequestEntityTooLarge("limit is 3145728"),
			code:    http.StatusRequestEntityTooLarge,
			reason:  meta.StatusReasonRequestEntityTooLarge,
			message: "Request entity too large: limit is 3145728",
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413}`,
		},
		{
			// NewInternalError's single cause carries only the message.
			name:    "InternalError",
			err:     status.InternalError(errors.New("boom")),
			code:    http.StatusInternalServerError,
			reason:  meta.StatusReasonInternalError,
			message: "Internal error occurred: boom",
			details: &meta.StatusDetails{Causes: []meta.StatusCause{{Message: "boom"}}},
			wire:    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: boom","reason":"InternalError","details":{"causes":[{"message":"boom"}]},"code":500}`,
		},
	}
}

// TestConstructors checks every constructor's code, reason, message and
// details, and that exactly the matching predicate holds, for the error
// itself and wrapped.
func TestConstructors(t *testing.T) {
	for _, tc := range constructorCases() {
		t.Run(tc.name, func(t *testing.T) {
			st := tc.err.Status
			if st.Kind != "Status" || st.APIVersion != "v1" {
				t.Errorf("TypeMeta = %+v, want Status v1", st.TypeMeta)
			}
			if st.Status != meta.StatusFailure {
				t.Errorf("status = %q, want Failure", st.Status)
			}
			if st.Code != tc.code {
				t.Errorf("code = %d, want %d", st.Code, tc.code)
			}
			if st.Reason != tc.reason {
				t.Errorf("reason = %q, want %q", st.Reason, tc.reason)
			}
			if st.Message != tc.message {
				t.Errorf("message =\n\t%s\nwant\n\t%s", st.Message, tc.message)
			}
			if tc.err.Error() != tc.message {
				t.Errorf("Error() = %q, want the message", tc.err.Error())
			}
			// Compared as JSON: a nil and an empty list of causes are
			// the same on the wire.
			if got, want := dump(st.Details), dump(tc.details); got != want {
				t.Errorf("details = %s, want %s", got, want)
			}

			wrapped := fmt.Errorf("handling request: %w", tc.err)
			doubly := fmt.Errorf("outer: %w", wrapped)
			for label, err := range map[string]error{"bare": tc.err, "wrapped": wrapped, "doubly wrapped": doubly} {
				for reason, is := range predicates {
					if got, want := is(err), reason == tc.reason; got != want {
						t.Errorf("%s: Is%s = %v, want %v", label, reason, got, want)
					}
				}
				if got := status.ReasonOf(err); got != tc.reason {
					t.Errorf("%s: ReasonOf = %q, want %q", label, got, tc.reason)
				}
				if got := status.CodeOf(err); got != tc.code {
					t.Errorf("%s: CodeOf = %d, want %d", label, got, tc.code)
				}
				if diff := cmp.Diff(st, status.FromError(err)); diff != "" {
					t.Errorf("%s: FromError (-want +got):\n%s", label, diff)
				}
			}
		})
	}
}

// TestPredicatesCoverEveryReason makes sure the table above has one
// predicate per constructor reason, so adding a reason without a predicate
// fails here.
func TestPredicatesCoverEveryReason(t *testing.T) {
	for _, tc := range constructorCases() {
		if _, ok := predicates[tc.reason]; !ok {
			t.Errorf("%s: no predicate for reason %q", tc.name, tc.reason)
		}
	}
}

// TestWireEncoding checks that a Status encodes to the exact bytes
// kube-apiserver sends: field order, omitted empty fields, "metadata":{}
// always present, and HTML characters escaped as encoding/json's Encoder
// (used by apimachinery's JSON serializer) escapes them.
func TestWireEncoding(t *testing.T) {
	for _, tc := range constructorCases() {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := json.NewEncoder(&buf).Encode(tc.err.Status); err != nil {
				t.Fatal(err)
			}
			if got, want := buf.String(), tc.wire+"\n"; got != want {
				t.Errorf("wire =\n\t%s\nwant\n\t%s", got, want)
			}
		})
	}
}

// TestWireRoundTrip decodes each wire body back into a meta.Status and
// expects the constructor's Status, except that empty causes vanish.
func TestWireRoundTrip(t *testing.T) {
	for _, tc := range constructorCases() {
		t.Run(tc.name, func(t *testing.T) {
			var got meta.Status
			if err := json.Unmarshal([]byte(tc.wire), &got); err != nil {
				t.Fatal(err)
			}
			want := tc.err.Status
			if want.Details != nil && len(want.Details.Causes) == 0 {
				d := *want.Details
				d.Causes = nil
				want.Details = &d
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNew(t *testing.T) {
	e := status.New(http.StatusTeapot, "Teapot", "short and stout")
	want := meta.Status{
		TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   meta.StatusFailure, Code: 418, Reason: "Teapot", Message: "short and stout",
	}
	if diff := cmp.Diff(want, e.Status); diff != "" {
		t.Errorf("New (-want +got):\n%s", diff)
	}
	for reason, is := range predicates {
		if is(e) {
			t.Errorf("Is%s(New(418, Teapot)) = true", reason)
		}
	}
}

// TestNonStatusErrors covers errors that carry no Status: FromError makes
// them an InternalError, CodeOf says 500, ReasonOf says Unknown and only
// no predicate matches (not even IsInternalError, which is about the
// reason the error carries).
func TestNonStatusErrors(t *testing.T) {
	cases := []struct {
		name string
		err  error
	}{
		{"plain", errors.New("disk on fire")},
		{"wrapped", fmt.Errorf("writing: %w", errors.New("disk on fire"))},
		{"io.EOF", io.EOF},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := status.FromError(tc.err)
			want := meta.Status{
				TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status:   meta.StatusFailure,
				Code:     http.StatusInternalServerError,
				Reason:   meta.StatusReasonInternalError,
				Message:  "Internal error occurred: " + tc.err.Error(),
				Details:  &meta.StatusDetails{Causes: []meta.StatusCause{{Message: tc.err.Error()}}},
			}
			if diff := cmp.Diff(want, st); diff != "" {
				t.Errorf("FromError (-want +got):\n%s", diff)
			}
			if got := status.CodeOf(tc.err); got != http.StatusInternalServerError {
				t.Errorf("CodeOf = %d, want 500", got)
			}
			if got := status.ReasonOf(tc.err); got != meta.StatusReasonUnknown {
				t.Errorf("ReasonOf = %q, want Unknown", got)
			}
			for reason, is := range predicates {
				if is(tc.err) {
					t.Errorf("Is%s = true for a non-status error", reason)
				}
			}
		})
	}
}

// TestNil checks that no predicate matches a nil error.
func TestNil(t *testing.T) {
	for reason, is := range predicates {
		if is(nil) {
			t.Errorf("Is%s(nil) = true", reason)
		}
	}
	if got := status.ReasonOf(nil); got != meta.StatusReasonUnknown {
		t.Errorf("ReasonOf(nil) = %q", got)
	}
}

// TestErrorsAs checks that a wrapped *status.Error is reachable with
// errors.As and keeps its identity.
func TestErrorsAs(t *testing.T) {
	orig := status.NotFound(widgets, "foo")
	err := fmt.Errorf("get: %w", orig)
	var se *status.Error
	if !errors.As(err, &se) || se != orig {
		t.Fatalf("errors.As = %v, %p; want %p", se, se, orig)
	}
	if !errors.Is(err, orig) {
		t.Error("errors.Is(wrapped, orig) = false")
	}
}

// TestJoinedErrors checks errors.Join: the first Status in the join wins.
func TestJoinedErrors(t *testing.T) {
	err := errors.Join(errors.New("plain"), status.Conflict(widgets, "foo", errors.New("x")), status.NotFound(widgets, "foo"))
	if !status.IsConflict(err) {
		t.Errorf("IsConflict(join) = false, want true")
	}
	if status.IsNotFound(err) {
		t.Errorf("IsNotFound(join) = true, want false: the first Status in the join decides")
	}
	if got := status.CodeOf(err); got != http.StatusConflict {
		t.Errorf("CodeOf(join) = %d, want 409", got)
	}
}

func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}
