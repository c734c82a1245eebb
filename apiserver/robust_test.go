package apiserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/meta"
)

// TestClientErrorsAreNot500 checks inputs that once made the server answer
// 500: each is the client's fault and gets the 4xx or 504 kube-apiserver
// answers.
func TestClientErrorsAreNot500(t *testing.T) {
	ts := startWith(t, cogKind(t), widgetKind())
	createWidget(t, ts.Server, "w1", "")
	tests := []struct {
		name                string
		method, path, ctype string
		body                string
		code                int
		reason              meta.StatusReason
		message             string
	}{
		{"float out of range", "POST", cogsPath, "application/json", cog("a", `{"teeth":12,"extra":{"x":1e999}}`),
			http.StatusBadRequest, meta.StatusReasonBadRequest, "out of range"},
		{"integer of 400 digits", "POST", cogsPath, "application/json", cog("a", `{"teeth":12,"extra":{"x":1`+strings.Repeat("0", 400)+`}}`),
			http.StatusBadRequest, meta.StatusReasonBadRequest, "out of range"},
		{"float out of range in a list", "POST", cogsPath, "application/json", cog("a", `{"teeth":12,"extra":{"x":[1,-1e999]}}`),
			http.StatusBadRequest, meta.StatusReasonBadRequest, "out of range"},
		{"watch far in the future", "GET", widgetsPath + "?watch=1&resourceVersion=9223372036854775807&timeoutSeconds=1", "", "",
			http.StatusGatewayTimeout, meta.StatusReasonTimeout, "Too large resource version"},
		{"encoded slash in a name", "GET", widgetsPath + "/w1%2Fstatus", "", "",
			http.StatusBadRequest, meta.StatusReasonBadRequest, `Name parameter invalid: "w1/status": may not contain '/'`},
		{"encoded slash in a name to update", "PUT", widgetsPath + "/w1%2Fstatus", "application/json", `{"metadata":{"name":"w1"}}`,
			http.StatusBadRequest, meta.StatusReasonBadRequest, "may not contain '/'"},
		{"encoded slash in a namespace", "GET", "/apis/stable.example.com/v1/namespaces/default%2Fwidgets/w1", "", "",
			http.StatusBadRequest, meta.StatusReasonBadRequest, `Namespace parameter invalid: "default/widgets"`},
		{"encoded slash in a namespace of a list", "GET", "/apis/stable.example.com/v1/namespaces/default%2Fx/widgets", "", "",
			http.StatusBadRequest, meta.StatusReasonBadRequest, `Namespace parameter invalid: "default/x"`},
		{"encoded percent in a name", "DELETE", widgetsPath + "/w1%25", "", "",
			http.StatusBadRequest, meta.StatusReasonBadRequest, "may not contain '%'"},
		{"apply configuration nested 5000 deep", "PATCH", widgetsPath + "/w1?fieldManager=m", "application/apply-patch+yaml",
			"apiVersion: stable.example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n",
			http.StatusBadRequest, meta.StatusReasonBadRequest, "nested deeper than"},
		{"YAML nested 5000 deep", "POST", cogsPath, "application/yaml",
			"apiVersion: dyn.example.com/v1\nkind: Cog\nmetadata: {name: y}\nspec: {teeth: 4, extra: " + strings.Repeat("{a: ", 5000) + "1" + strings.Repeat("}", 5000) + "}\n",
			http.StatusBadRequest, meta.StatusReasonBadRequest, "nested deeper than"},
		{"dot dot as a name", "GET", widgetsPath + "/%2E%2E", "", "",
			http.StatusBadRequest, meta.StatusReasonBadRequest, "may not be '..'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, ts.Server, tc.method, tc.path, tc.ctype, tc.body)
			if r.code != tc.code {
				t.Fatalf("%s %s: %d %s, want %d", tc.method, tc.path, r.code, r.body, tc.code)
			}
			st := decodeStatus(t, r)
			if st.Reason != tc.reason || !strings.Contains(st.Message, tc.message) {
				t.Errorf("%s %s: reason %q message %q, want %q containing %q", tc.method, tc.path, st.Reason, st.Message, tc.reason, tc.message)
			}
		})
	}
	// The encoded slash did not reach the status subresource, and the
	// widget is still served at its own path.
	if r := do(t, ts.Server, "GET", widgetsPath+"/w1/status", "", ""); r.code != http.StatusOK {
		t.Errorf("status of w1: %d %s", r.code, r.body)
	}
}

// TestPanicDetailStaysInTheLog checks a panic's value is not sent to the
// client.
func TestPanicDetailStaysInTheLog(t *testing.T) {
	srv := newPanickyServer(t)
	r := do(t, srv, "POST", widgetsPath, "application/json", `{"metadata":{"name":"boom"}}`)
	st := decodeStatus(t, r)
	if r.code != http.StatusInternalServerError || st.Reason != meta.StatusReasonInternalError {
		t.Fatalf("%d %s", r.code, r.body)
	}
	if strings.Contains(string(r.body), "defaulting bug") || !strings.Contains(st.Message, "look in its logs") {
		t.Errorf("the panic's value reached the client: %s", r.body)
	}
}
