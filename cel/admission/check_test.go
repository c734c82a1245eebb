package admission_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	celadm "github.com/kapi-dev/kapi/cel/admission"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// referenceCheck is one dry-run create sent to kube-apiserver v1.37 and
// its answer (testdata/check-expression-reference.json).
type referenceCheck struct {
	Name   string             `json:"name"`
	Body   json.RawMessage    `json:"body"`
	Code   int                `json:"code"`
	Causes []meta.StatusCause `json:"causes"`
}

// needVariables are the cases whose answer depends on the variables the
// policy declares, which the CheckExpression hook does not pass: kube
// refuses them, the hook accepts them (CheckPolicyExpression, given the
// variables, answers as kube; see TestCheckPolicyExpression).
var needVariables = map[string]bool{
	"vap validation no variables":     true,
	"vap validation unknown variable": true,
	"vap validation dyn variable":     true,
}

// TestCheckExpressionReference creates, dry run, each configuration the
// reference was sent, on a server whose admission kinds check their
// expressions with CheckExpression, and expects the reference's code and
// causes.
func TestCheckExpressionReference(t *testing.T) {
	b, err := os.ReadFile("testdata/check-expression-reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []referenceCheck
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	c, err := celadm.NewCompiler()
	if err != nil {
		t.Fatal(err)
	}
	srv := apiserver.New(apiserver.Options{})
	for _, k := range arv1.Kinds(arv1.Options{CheckExpression: c.CheckExpression}) {
		srv.Register(k)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Close)
	s := &testServer{t: t, url: ts.URL}
	resources := map[string]string{"ValidatingAdmissionPolicy": "validatingadmissionpolicies",
		"MutatingAdmissionPolicy": "mutatingadmissionpolicies", "ValidatingWebhookConfiguration": "validatingwebhookconfigurations"}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			if needVariables[tc.Name] {
				t.Skip("depends on the policy's variables, which the hook does not pass")
			}
			var head struct{ Kind string }
			_ = json.Unmarshal(tc.Body, &head)
			r := s.do("POST", "/apis/admissionregistration.k8s.io/v1/"+resources[head.Kind]+"?dryRun=All", string(tc.Body))
			got := referenceCheck{Name: tc.Name, Body: tc.Body, Code: r.code}
			if r.status.Details != nil {
				got.Causes = r.status.Details.Causes
			}
			if d := cmp.Diff(tc, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

// TestCheckPolicyExpression checks expressions against the variables
// their policy declares, as kube-apiserver does; the answers are the
// reference's.
func TestCheckPolicyExpression(t *testing.T) {
	c, err := celadm.NewCompiler()
	if err != nil {
		t.Fatal(err)
	}
	path := status.NewPath("spec", "validations").Index(0).Child("expression")
	vars := func(exprs ...string) []arv1.Variable {
		var out []arv1.Variable
		for i, e := range exprs {
			out = append(out, arv1.Variable{Name: string(rune('a' + i)), Expression: e})
		}
		return out
	}
	tests := []struct {
		name string
		expr string
		vars []arv1.Variable
		want string // the cause's message; "" for none
	}{
		{"no variables", "variables.x", nil, "Invalid value: \"variables.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')\n | variables.x\n | ^"},
		{"unknown variable", "variables.b", vars("true"), "Invalid value: \"variables.b\": compilation failed: ERROR: <input>:1:10: undefined field 'b'\n | variables.b\n | .........^"},
		{"bool variable", "variables.a", vars("true"), ""},
		{"dyn variable", "variables.a", vars("object.spec"), "Invalid value: \"variables.a\": must evaluate to bool but got dyn"},
		{"variables see earlier ones", "variables.b", vars("1", "variables.a == 1"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fe := c.CheckPolicyExpression(arv1.Expression{Path: path, Kind: arv1.ValidationExpression, Expression: tc.expr, HasAuthorizer: true}, tc.vars)
			got := ""
			if fe != nil {
				got = status.Invalid(meta.GroupVersionKind{}, "", status.FieldErrors{fe}).Status.Details.Causes[0].Message
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
			// Without the variables, the hook lets them all through.
			if fe := c.CheckExpression(arv1.Expression{Path: path, Kind: arv1.ValidationExpression, Expression: tc.expr, HasAuthorizer: true}); fe != nil {
				t.Errorf("CheckExpression: %v", fe)
			}
		})
	}
}
