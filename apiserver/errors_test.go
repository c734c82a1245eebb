package apiserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/meta"
)

// TestBadInput checks the Status body of every malformed request: code,
// reason and message as kube-apiserver sends them.
func TestBadInput(t *testing.T) {
	ts := newTestServer(t)
	existing := createWidget(t, ts, "existing", `{"color":"red"}`)
	big := `{"metadata":{"name":"big"},"spec":{"color":"` + strings.Repeat("a", 3<<20) + `"}}`
	tests := []struct {
		name        string
		method      string
		path        string
		contentType string
		body        string
		code        int
		reason      meta.StatusReason
		message     string
	}{
		{"malformed JSON", "POST", widgetsPath, "application/json", `{"metadata":`, 400, meta.StatusReasonBadRequest, "unexpected end of JSON input"},
		{"wrong type of value", "POST", widgetsPath, "application/json", `{"metadata":{"name":"x"},"spec":{"replicas":"three"}}`, 400, meta.StatusReasonBadRequest, "cannot unmarshal string"},
		{"apiVersion not matching URL", "POST", widgetsPath, "application/json", `{"apiVersion":"other.example.com/v1","kind":"Widget","metadata":{"name":"x"}}`, 400, meta.StatusReasonBadRequest,
			"the API version in the data (other.example.com/v1) does not match the expected API version (stable.example.com/v1)"},
		{"kind not matching URL", "POST", widgetsPath, "application/json", `{"apiVersion":"stable.example.com/v1","kind":"Gadget","metadata":{"name":"x"}}`, 400, meta.StatusReasonBadRequest,
			"the kind in the data (Gadget) does not match the expected kind (Widget)"},
		{"namespace not matching URL", "POST", widgetsPath, "application/json", `{"metadata":{"name":"x","namespace":"other"}}`, 400, meta.StatusReasonBadRequest,
			"the namespace of the provided object does not match the namespace sent on the request"},
		{"name not matching URL", "PUT", widgetsPath + "/existing", "application/json", `{"metadata":{"name":"other","resourceVersion":"` + existing.ResourceVersion + `"}}`, 400, meta.StatusReasonBadRequest,
			"the name of the object (other) does not match the name on the URL (existing)"},
		{"unknown resource", "GET", "/apis/stable.example.com/v1/namespaces/default/sprockets", "", "", 404, meta.StatusReasonNotFound, "the server could not find the requested resource"},
		{"unknown group", "GET", "/apis/nope.example.com/v1/widgets", "", "", 404, meta.StatusReasonNotFound, "the server could not find the requested resource"},
		{"missing object", "GET", widgetsPath + "/missing", "", "", 404, meta.StatusReasonNotFound, `widgets.stable.example.com "missing" not found`},
		{"unsupported verb", "POST", widgetsPath + "/existing", "application/json", `{}`, 405, meta.StatusReasonMethodNotAllowed, ""},
		{"unsupported method", "OPTIONS", widgetsPath, "", "", 405, meta.StatusReasonMethodNotAllowed, ""},
		{"stale resourceVersion", "PUT", widgetsPath + "/existing", "application/json", `{"metadata":{"name":"existing","resourceVersion":"1"}}`, 409, meta.StatusReasonConflict,
			`Operation cannot be fulfilled on widgets.stable.example.com "existing": the object has been modified; please apply your changes to the latest version and try again`},
		{"existing name", "POST", widgetsPath, "application/json", `{"metadata":{"name":"existing"}}`, 409, meta.StatusReasonAlreadyExists, `widgets.stable.example.com "existing" already exists`},
		{"body too large", "POST", widgetsPath, "application/json", big, 413, meta.StatusReasonRequestEntityTooLarge, "Request entity too large: limit is 3145728"},
		{"unsupported content type", "POST", widgetsPath, "text/plain", `{}`, 415, meta.StatusReasonUnsupportedMediaType, ""},
		{"invalid name", "POST", widgetsPath, "application/json", `{"metadata":{"name":"Not_Valid"}}`, 422, meta.StatusReasonInvalid, `Widget.stable.example.com "Not_Valid" is invalid: metadata.name: Invalid value: "Not_Valid"`},
		{"no name", "POST", widgetsPath, "application/json", `{"metadata":{}}`, 422, meta.StatusReasonInvalid, "metadata.name: Required value: name or generateName is required"},
		{"hook validation", "POST", widgetsPath, "application/json", `{"metadata":{"name":"many"},"spec":{"replicas":5000}}`, 422, meta.StatusReasonInvalid,
			`Widget.stable.example.com "many" is invalid: spec.replicas: Invalid value: 5000: must be less than or equal to 1000`},
		{"strict unknown field", "POST", widgetsPath + "?fieldValidation=Strict", "application/json", `{"metadata":{"name":"s"},"spec":{"foo":1}}`, 400, meta.StatusReasonBadRequest, `strict decoding error: unknown field "spec.foo"`},
		{"bad fieldValidation on create", "POST", widgetsPath + "?fieldValidation=Loud", "application/json", `{"metadata":{"name":"s"}}`, 422, meta.StatusReasonInvalid,
			`CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"`},
		{"bad fieldValidation on update", "PUT", widgetsPath + "/existing?fieldValidation=strict", "application/json", `{"metadata":{"name":"existing"}}`, 422, meta.StatusReasonInvalid,
			`UpdateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"`},
		{"bad fieldValidation on patch", "PATCH", widgetsPath + "/existing?fieldValidation=Loud", "application/merge-patch+json", `{}`, 422, meta.StatusReasonInvalid,
			`PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"`},
		{"bad dryRun on create", "POST", widgetsPath + "?dryRun=Some", "application/json", `{"metadata":{"name":"s"}}`, 422, meta.StatusReasonInvalid,
			`CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"`},
		{"bad dryRun on update", "PUT", widgetsPath + "/existing?dryRun=All&dryRun=x", "application/json", `{"metadata":{"name":"existing"}}`, 422, meta.StatusReasonInvalid,
			`UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["All","x"]: supported values: "All"`},
		{"bad dryRun on patch", "PATCH", widgetsPath + "/existing?dryRun=Some", "application/merge-patch+json", `{}`, 422, meta.StatusReasonInvalid,
			`PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"`},
		{"bad dryRun on delete", "DELETE", widgetsPath + "/existing?dryRun=Some", "", "", 422, meta.StatusReasonInvalid,
			`DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"`},
		{"bad dryRun and fieldValidation", "POST", widgetsPath + "?dryRun=Some&fieldValidation=Loud", "application/json", `{"metadata":{"name":"s"}}`, 422, meta.StatusReasonInvalid,
			`CreateOptions.meta.k8s.io "" is invalid: [dryRun: Unsupported value: ["Some"]: supported values: "All", fieldValidation: Unsupported value: "Loud"`},
		{"malformed label selector", "GET", widgetsPath + "?labelSelector=a%20in%20(", "", "", 400, meta.StatusReasonBadRequest, ""},
		{"unsupported field selector", "GET", widgetsPath + "?fieldSelector=spec.size%3Dbig", "", "", 400, meta.StatusReasonBadRequest, "field label not supported: spec.size"},
		{"named namespaced object without namespace", "GET", "/apis/stable.example.com/v1/widgets/existing", "", "", 404, meta.StatusReasonNotFound, ""},
		{"namespace on a cluster-scoped kind", "GET", "/apis/stable.example.com/v1/namespaces/default/gadgets", "", "", 404, meta.StatusReasonNotFound, ""},
		{"unknown subresource", "GET", widgetsPath + "/existing/sprocket", "", "", 404, meta.StatusReasonNotFound, ""},
		{"malformed JSON patch", "PATCH", widgetsPath + "/existing", "application/json-patch+json", `{"op":"add"}`, 400, meta.StatusReasonBadRequest, ""},
		{"unsupported patch type", "PATCH", widgetsPath + "/existing", "application/json", `{}`, 415, meta.StatusReasonUnsupportedMediaType,
			"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor"},
		{"failing JSON patch test", "PATCH", widgetsPath + "/existing", "application/json-patch+json", `[{"op":"test","path":"/spec/color","value":"blue"}]`, 422, meta.StatusReasonInvalid, ""},
		{"delete of a missing object", "DELETE", widgetsPath + "/missing", "", "", 404, meta.StatusReasonNotFound, `widgets.stable.example.com "missing" not found`},
		{"delete with stale precondition", "DELETE", widgetsPath + "/existing", "application/json", `{"preconditions":{"resourceVersion":"1"}}`, 409, meta.StatusReasonConflict, "Precondition failed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, ts, tc.method, tc.path, tc.contentType, tc.body)
			if r.code != tc.code {
				t.Fatalf("code = %d, want %d; body %s", r.code, tc.code, r.body)
			}
			st := decodeStatus(t, r)
			if st.Status != meta.StatusFailure || st.Code != int32(tc.code) || st.Reason != tc.reason {
				t.Errorf("status = %q code %d reason %q, want Failure %d %q", st.Status, st.Code, st.Reason, tc.code, tc.reason)
			}
			if !strings.Contains(st.Message, tc.message) {
				t.Errorf("message = %q, want it to contain %q", st.Message, tc.message)
			}
		})
	}
	// None of the bad requests changed the stored object.
	r := do(t, ts, "GET", widgetsPath+"/existing", "", "")
	if got := decodeWidget(t, r); got.ResourceVersion != existing.ResourceVersion || got.Spec.Color != "red" {
		t.Errorf("existing widget changed: %s", r.body)
	}
	if r := do(t, ts, "GET", widgetsPath, "", ""); !strings.Contains(string(r.body), `"name":"existing"`) || strings.Count(string(r.body), `"uid"`) != 1 {
		t.Errorf("bad requests stored objects: %s", r.body)
	}
}

func TestInvalidCauses(t *testing.T) {
	ts := newTestServer(t)
	r := do(t, ts, "POST", widgetsPath, "application/json", `{"metadata":{"name":"many"},"spec":{"replicas":5000}}`)
	st := decodeStatus(t, r)
	if st.Details == nil || len(st.Details.Causes) != 1 {
		t.Fatalf("details = %+v", st.Details)
	}
	c := st.Details.Causes[0]
	want := meta.StatusCause{Type: meta.CauseTypeFieldValueInvalid, Field: "spec.replicas", Message: "Invalid value: 5000: must be less than or equal to 1000"}
	if c != want {
		t.Errorf("cause = %+v, want %+v", c, want)
	}
	if st.Details.Kind != "Widget" || st.Details.Group != "stable.example.com" || st.Details.Name != "many" {
		t.Errorf("details = %+v", st.Details)
	}
	if r.code != http.StatusUnprocessableEntity {
		t.Errorf("code = %d", r.code)
	}
}
