package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// --disable-admission-plugins turns a plugin off by kube-apiserver's
// name, and refuses a name it does not know with kube-apiserver's words.
func TestDisableAdmissionPlugins(t *testing.T) {
	if _, err := Open(Config{DisableAdmissionPlugins: []string{"Nope"}}); err == nil ||
		err.Error() != `disable-admission-plugins plugin "Nope" is unknown` {
		t.Errorf("unknown plugin: %v", err)
	}
	for _, tc := range []struct {
		disabled []string
		want     int
	}{
		{nil, http.StatusUnprocessableEntity},
		{[]string{"ValidatingAdmissionPolicy"}, http.StatusCreated},
	} {
		srv, err := Open(Config{DisableAdmissionPlugins: tc.disabled, DisableControllers: true})
		if err != nil {
			t.Fatal(err)
		}
		post := func(path, body string) int {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			srv.Handler.ServeHTTP(rec, req)
			return rec.Code
		}
		post("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", `{"apiVersion":"admissionregistration.k8s.io/v1",
			"kind":"ValidatingAdmissionPolicy","metadata":{"name":"no-black"},"spec":{"matchConstraints":{"resourceRules":[
			{"apiGroups":["stable.example.com"],"apiVersions":["*"],"operations":["CREATE"],"resources":["widgets"]}]},
			"validations":[{"expression":"object.spec.color != 'black'"}]}}`)
		post("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", `{"apiVersion":"admissionregistration.k8s.io/v1",
			"kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"no-black"},"spec":{"policyName":"no-black","validationActions":["Deny"]}}`)
		got := post("/apis/stable.example.com/v1/namespaces/default/widgets",
			`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"black"}}`)
		srv.Close()
		if got != tc.want {
			t.Errorf("disabled %v: a black Widget got %d, want %d", tc.disabled, got, tc.want)
		}
	}
}
