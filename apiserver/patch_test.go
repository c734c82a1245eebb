package apiserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// doAs is do with a User-Agent.
func doAs(t testing.TB, ts *httptest.Server, userAgent, method, path, contentType, body string) response {
	t.Helper()
	return send(t, ts.URL+path, method, map[string]string{"Content-Type": contentType, "User-Agent": userAgent}, []byte(body))
}

func portsOf(w widget) string {
	var parts []string
	for _, p := range w.Spec.Ports {
		parts = append(parts, p.Name+":"+itoa(p.Port))
	}
	return strings.Join(parts, ",")
}

func itoa(n int32) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// managers lists a widget's managedFields as manager/operation/subresource,
// sorted: the order of entries depends on their times.
func managers(w widget) []string {
	var out []string
	for _, e := range w.ManagedFields {
		s := e.Manager + "/" + string(e.Operation)
		if e.Subresource != "" {
			s += "/" + e.Subresource
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// fieldsOf returns the FieldsV1 of a manager's entry.
func fieldsOf(w widget, manager string) string {
	for _, e := range w.ManagedFields {
		if e.Manager == manager && e.FieldsV1 != nil {
			return string(e.FieldsV1.Raw)
		}
	}
	return ""
}

const portsSpec = `{"color":"red","ports":[{"name":"http","port":80},{"name":"https","port":443}]}`

// TestPatchTypes applies every patch type to a fresh Widget.
func TestPatchTypes(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name, contentType, body string
		color, ports            string
	}{
		{"merge patch", "application/merge-patch+json", `{"spec":{"color":"blue"}}`, "blue", "http:80,https:443"},
		{"merge patch replaces lists", "application/merge-patch+json", `{"spec":{"ports":[{"name":"http","port":8080}]}}`, "red", "http:8080"},
		{"merge patch with charset", "application/merge-patch+json; charset=utf-8", `{"spec":{"color":"green"}}`, "green", "http:80,https:443"},
		{"JSON patch", "application/json-patch+json", `[{"op":"replace","path":"/spec/color","value":"blue"},{"op":"remove","path":"/spec/ports/0"}]`, "blue", "https:443"},
		{"JSON patch test", "application/json-patch+json", `[{"op":"test","path":"/spec/color","value":"red"},{"op":"add","path":"/spec/ports/-","value":{"name":"grpc","port":9090}}]`, "red", "http:80,https:443,grpc:9090"},
		{"strategic merge by name", "application/strategic-merge-patch+json", `{"spec":{"ports":[{"name":"http","port":8080}]}}`, "red", "http:8080,https:443"},
		{"strategic merge adds", "application/strategic-merge-patch+json", `{"spec":{"color":"pink","ports":[{"name":"grpc","port":9090}]}}`, "pink", "grpc:9090,http:80,https:443"},
		{"strategic merge $patch delete", "application/strategic-merge-patch+json", `{"spec":{"ports":[{"name":"https","$patch":"delete"}]}}`, "red", "http:80"},
		{"strategic merge $patch replace", "application/strategic-merge-patch+json", `{"spec":{"ports":[{"name":"x","port":1},{"$patch":"replace"}]}}`, "red", "x:1"},
		{"strategic merge null deletes", "application/strategic-merge-patch+json", `{"spec":{"color":null}}`, "", "http:80,https:443"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := "p" + itoa(int32(i))
			before := createWidget(t, ts, name, portsSpec)
			r := do(t, ts, "PATCH", widgetsPath+"/"+name, tc.contentType, tc.body)
			if r.code != http.StatusOK {
				t.Fatalf("%d %s", r.code, r.body)
			}
			w := decodeWidget(t, r)
			if w.Spec.Color != tc.color || portsOf(w) != tc.ports {
				t.Errorf("color %q ports %q, want %q %q", w.Spec.Color, portsOf(w), tc.color, tc.ports)
			}
			if w.ResourceVersion == before.ResourceVersion || w.Generation != 2 {
				t.Errorf("rv %s → %s, generation %d", before.ResourceVersion, w.ResourceVersion, w.Generation)
			}
			got := decodeWidget(t, do(t, ts, "GET", widgetsPath+"/"+name, "", ""))
			if got.ResourceVersion != w.ResourceVersion || portsOf(got) != tc.ports {
				t.Errorf("stored %s ports %q", got.ResourceVersion, portsOf(got))
			}
		})
	}
}

// TestPatchErrors checks the Status of patches kube-apiserver refuses.
func TestPatchErrors(t *testing.T) {
	ts := startWith(t, widgetKind(), thingKind())
	w := createWidget(t, ts.Server, "w", portsSpec)
	do(t, ts.Server, "POST", thingsPath, "application/json", `{"metadata":{"name":"t"},"spec":{"size":1}}`)
	path := widgetsPath + "/w"
	const apply = "application/apply-patch+yaml"
	const merge = "application/merge-patch+json"
	cfg := `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"blue"}}`
	tests := []struct {
		name, path, contentType, body string
		code                          int
		reason                        meta.StatusReason
		message                       string
	}{
		{"unknown patch type", path, "application/json", `{}`, 415, meta.StatusReasonUnsupportedMediaType,
			"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor"},
		{"strategic merge of an unstructured kind", thingsPath + "/t", "application/strategic-merge-patch+json", `{}`, 415, meta.StatusReasonUnsupportedMediaType,
			"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor"},
		{"apply without fieldManager", path, apply, cfg, 422, meta.StatusReasonInvalid,
			`PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`},
		{"force on a merge patch", path + "?force=true", merge, `{}`, 422, meta.StatusReasonInvalid,
			`PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch`},
		{"force=false on a merge patch", path + "?force=false", merge, `{}`, 422, meta.StatusReasonInvalid, "force: Forbidden"},
		{"bad force", path + "?fieldManager=m&force=maybe", apply, cfg, 400, meta.StatusReasonBadRequest, `strconv.ParseBool: parsing "maybe": invalid syntax`},
		{"unprintable fieldManager", path + "?fieldManager=a%01", merge, `{}`, 422, meta.StatusReasonInvalid, "fieldManager: Invalid value"},
		{"apply with managedFields", path + "?fieldManager=m", apply,
			`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","managedFields":[{"manager":"x","operation":"Apply"}]}}`,
			400, meta.StatusReasonBadRequest, "metadata.managedFields must be nil"},
		{"apply of another kind", path + "?fieldManager=m", apply, `{"apiVersion":"stable.example.com/v1","kind":"Gadget","metadata":{"name":"w"}}`,
			400, meta.StatusReasonBadRequest, "invalid object type"},
		{"apply of malformed YAML", path + "?fieldManager=m", apply, "a: [", 400, meta.StatusReasonBadRequest, "error decoding YAML"},
		{"apply of an undeclared field", path + "?fieldManager=m", apply,
			`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"colour":"blue"}}`, 400, meta.StatusReasonBadRequest, "field not declared in schema"},
		{"apply of another name", path + "?fieldManager=m", apply, `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"v"}}`, 400, meta.StatusReasonBadRequest,
			"the name of the object (v) does not match the name on the URL (w)"},
		{"apply to a missing status", widgetsPath + "/missing/status?fieldManager=m", apply, strings.Replace(cfg, `"w"`, `"missing"`, 1), 404, meta.StatusReasonNotFound, ""},
		{"apply with a uid to a missing object", widgetsPath + "/new?fieldManager=m", apply,
			`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"new","uid":"u1"}}`, 409, meta.StatusReasonConflict,
			"uid mismatch: the provided object specified uid u1, and no existing object was found"},
		{"apply with a duplicate field, strict", path + "?fieldManager=m&fieldValidation=Strict", apply,
			"apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  color: blue\n  color: red\n", 400, meta.StatusReasonBadRequest, "error strict decoding YAML"},
		{"malformed JSON patch", path, "application/json-patch+json", `{"op":"add"}`, 400, meta.StatusReasonBadRequest,
			"error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp"},
		{"malformed merge patch", path, merge, `[1]`, 400, meta.StatusReasonBadRequest, "error decoding patch: json: cannot unmarshal array"},
		// kube-apiserver refuses the patched object under Strict: 422 at
		// "patch", the problems after the object's JSON.
		{"duplicate field in a merge patch, strict", path + "?fieldValidation=Strict", merge, `{"spec":{"color":"a","color":"b"}}`, 422, meta.StatusReasonInvalid,
			`": strict decoding error: duplicate field "spec.color"`},
		{"unknown field in a JSON patch op, strict", path + "?fieldValidation=Strict", "application/json-patch+json", `[{"op":"add","path":"/spec/color","value":"x","extra":1}]`,
			422, meta.StatusReasonInvalid, `": strict decoding error: json patch unknown field "[0].extra"`},
		{"patch result of the wrong type", path, merge, `{"spec":{"replicas":"three"}}`, 422, meta.StatusReasonInvalid, `Invalid value: "{`},
		{"stale resourceVersion in a patch", path, merge, `{"metadata":{"resourceVersion":"1"},"spec":{"color":"pink"}}`, 409, meta.StatusReasonConflict, "the object has been modified"},
		{"stale resourceVersion in an apply", path + "?fieldManager=m", apply,
			`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"1"}}`, 409, meta.StatusReasonConflict, "the object has been modified"},
		{"bad strategic merge directive", path, "application/strategic-merge-patch+json", `{"spec":{"ports":[{"$patch":"explode","name":"http"}]}}`, 0, "", ""},
		{"missing object", widgetsPath + "/missing", merge, `{}`, 404, meta.StatusReasonNotFound, `widgets.stable.example.com "missing" not found`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, ts.Server, "PATCH", tc.path, tc.contentType, tc.body)
			if tc.code == 0 { // any error will do
				if r.code < 400 {
					t.Fatalf("code %d: %s", r.code, r.body)
				}
				return
			}
			if r.code != tc.code {
				t.Fatalf("code = %d, want %d; body %s", r.code, tc.code, r.body)
			}
			st := decodeStatus(t, r)
			if st.Code != int32(tc.code) || st.Reason != tc.reason || !strings.Contains(st.Message, tc.message) {
				t.Errorf("status %d %q %q, want %d %q containing %q", st.Code, st.Reason, st.Message, tc.code, tc.reason, tc.message)
			}
		})
	}
	got := decodeWidget(t, do(t, ts.Server, "GET", path, "", ""))
	if got.ResourceVersion != w.ResourceVersion {
		t.Errorf("failed patches changed the widget: %+v", got)
	}
	if r := do(t, ts.Server, "GET", widgetsPath+"/new", "", ""); r.code != http.StatusNotFound {
		t.Errorf("failed apply created: %d %s", r.code, r.body)
	}
}

// An apply conflict names each field and manager in the message and the
// causes.
func TestApplyConflict(t *testing.T) {
	ts := newTestServer(t)
	path := widgetsPath + "/c?fieldManager="
	const apply = "application/apply-patch+yaml"
	cfg := func(color string) string {
		return `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"c"},"spec":{"color":"` + color + `"}}`
	}
	if r := do(t, ts, "PATCH", path+"first", apply, cfg("red")); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	r := do(t, ts, "PATCH", path+"second", apply, cfg("blue"))
	if r.code != http.StatusConflict {
		t.Fatalf("conflicting apply: %d %s", r.code, r.body)
	}
	st := decodeStatus(t, r)
	wantMsg := `Apply failed with 1 conflict: conflict with "first": .spec.color`
	if st.Reason != meta.StatusReasonConflict || st.Message != wantMsg {
		t.Errorf("status %q %q, want %q", st.Reason, st.Message, wantMsg)
	}
	want := []meta.StatusCause{{Type: meta.CauseTypeFieldManagerConflict, Message: `conflict with "first"`, Field: ".spec.color"}}
	if st.Details == nil {
		t.Errorf("no details, want causes %+v", want)
	} else if diff := cmp.Diff(want, st.Details.Causes); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
	// Applying the same value is no conflict: both own the field.
	if r := do(t, ts, "PATCH", path+"second", apply, cfg("red")); r.code != http.StatusOK {
		t.Fatalf("agreeing apply: %d %s", r.code, r.body)
	}
	r = do(t, ts, "PATCH", path+"second&force=true", apply, cfg("blue"))
	if r.code != http.StatusOK {
		t.Fatalf("forced apply: %d %s", r.code, r.body)
	}
	w := decodeWidget(t, r)
	if w.Spec.Color != "blue" || fieldsOf(w, "second") != `{"f:spec":{"f:color":{}}}` || fieldsOf(w, "first") != "" {
		t.Errorf("after force: color %q, managedFields %+v", w.Spec.Color, managers(w))
	}
}

func thingKind() apiserver.Kind {
	return apiserver.Kind{
		Group: "stable.example.com", Version: "v1", Kind: "Thing", Resource: "things", Namespaced: true,
		New: func() meta.Object { return &meta.Unstructured{} },
	}
}

const thingsPath = "/apis/stable.example.com/v1/namespaces/default/things"
