package resourceversion

import (
	"errors"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// query parses a raw query string, failing the test on a typo.
func query(t *testing.T, raw string) url.Values {
	t.Helper()
	q, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatalf("bad test query %q: %v", raw, err)
	}
	return q
}

// wantErr is the Status a rejection must carry.
type wantErr struct {
	code   int32
	reason meta.StatusReason
	msg    string
	// causes are checked for Invalid errors: every cause in order.
	causes []meta.StatusCause
}

func badRequest(msg string) *wantErr {
	return &wantErr{code: 400, reason: meta.StatusReasonBadRequest, msg: msg}
}

// invalid builds the 422 kube-apiserver sends for ListOptions, whose message
// joins "field: body" of each cause.
func invalid(causes ...meta.StatusCause) *wantErr {
	msg := `ListOptions.meta.k8s.io "" is invalid: `
	switch len(causes) {
	case 1:
		msg += causes[0].Field + ": " + causes[0].Message
	default:
		msg += "["
		for i, c := range causes {
			if i > 0 {
				msg += ", "
			}
			msg += c.Field + ": " + c.Message
		}
		msg += "]"
	}
	return &wantErr{code: 422, reason: meta.StatusReasonInvalid, msg: msg, causes: causes}
}

func forbidden(field, detail string) meta.StatusCause {
	return meta.StatusCause{Type: meta.CauseTypeFieldValueForbidden, Field: field, Message: "Forbidden: " + detail}
}

func notSupported(field, body string) meta.StatusCause {
	return meta.StatusCause{Type: meta.CauseTypeFieldValueNotSupported, Field: field, Message: "Unsupported value: " + body}
}

// The causes kube-apiserver's ValidateListOptions produces.
var (
	causeMatchWithoutRV   = forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided")
	causeMatchContinue    = forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided")
	causeExactZero        = forbidden("resourceVersionMatch", `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`)
	causeSendInitialList  = forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list")
	causeSendInitialMatch = forbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
	causeWatchMatchAlone  = forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
)

func listMatchNotSupported(v string) meta.StatusCause {
	return notSupported("resourceVersionMatch", `"`+v+`": supported values: "Exact", "NotOlderThan", ""`)
}

func watchMatchNotSupported(v string) meta.StatusCause {
	return notSupported("resourceVersionMatch", `"`+v+`": supported values: "NotOlderThan"`)
}

func invalidRV(rv, reason string) *wantErr {
	return badRequest(`invalid resource version: resourceVersion: Invalid value: "` + rv + `": strconv.ParseUint: parsing "` + rv + `": ` + reason)
}

// checkErr compares err with want; it reports whether err was nil.
func checkErr(t *testing.T, err error, want *wantErr) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var se *status.Error
	if !errors.As(err, &se) {
		t.Fatalf("error = %v (%T), want a *status.Error %d %s", err, err, want.code, want.reason)
	}
	st := se.Status
	if st.Code != want.code || st.Reason != want.reason || st.Message != want.msg {
		t.Fatalf("status = %d %s %q\nwant     %d %s %q", st.Code, st.Reason, st.Message, want.code, want.reason, want.msg)
	}
	if st.Kind != "Status" || st.APIVersion != "v1" || st.Status != meta.StatusFailure {
		t.Fatalf("status envelope = %+v", st)
	}
	if want.reason != meta.StatusReasonInvalid {
		if st.Details != nil {
			t.Fatalf("details = %+v, want none", st.Details)
		}
		return
	}
	d := st.Details
	if d == nil || d.Group != "meta.k8s.io" || d.Kind != "ListOptions" || d.Name != "" {
		t.Fatalf("details = %+v, want group meta.k8s.io kind ListOptions", d)
	}
	if diff := cmp.Diff(want.causes, d.Causes); diff != "" {
		t.Fatalf("causes (-want +got):\n%s", diff)
	}
}
