package admission_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
	celadm "github.com/kapi-dev/kapi/cel/admission"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/kinds/corev1"
)

// TestTypeCheck checks the warnings of kube's type checking of a
// ValidatingAdmissionPolicy: each validation and messageExpression is
// compiled against the schema of every kind its rules name (wildcards
// and subresources left out) and of its paramKind; the warning names
// the kind and gives CEL's issues.
func TestTypeCheck(t *testing.T) {
	srv := apiserver.New(apiserver.Options{})
	srv.Register(crdWidgetKind(t)).Register(corev1.ConfigMapKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	c, err := celadm.NewCompiler()
	if err != nil {
		t.Fatal(err)
	}
	policy := func(spec string) *arv1.ValidatingAdmissionPolicy {
		p := &arv1.ValidatingAdmissionPolicy{}
		if err := json.Unmarshal([]byte(`{"spec":`+spec+`}`), p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const widgets = `{"apiGroups":["stable.example.com"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["widgets"]}`
	const both = widgets + `,{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["configmaps"]}`
	tests := []struct {
		name string
		spec string
		want []arv1.ExpressionWarning
	}{
		{name: "fits", spec: `{"matchConstraints":{"resourceRules":[` + widgets + `]},"validations":[{"expression":"object.spec.replicas > 1 && object.metadata.name != '' && object.spec.ports.all(p, p.port > 0)","messageExpression":"object.spec.color"}]}`},
		{name: "undefined field", spec: `{"matchConstraints":{"resourceRules":[` + widgets + `]},"validations":[{"expression":"object.spec.nope == 1"}]}`,
			want: []arv1.ExpressionWarning{{FieldRef: "spec.validations[0].expression",
				Warning: "stable.example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'nope'\n | object.spec.nope == 1\n | ...........^\n"}}},
		{name: "two kinds, messageExpression", spec: `{"matchConstraints":{"resourceRules":[` + both + `]},"validations":[{"expression":"true","messageExpression":"object.spec.color"}]}`,
			want: []arv1.ExpressionWarning{{FieldRef: "spec.validations[0].messageExpression",
				Warning: "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'spec'\n | object.spec.color\n | ......^\n"}}},
		{name: "wrong type", spec: `{"matchConstraints":{"resourceRules":[` + widgets + `]},"validations":[{"expression":"object.spec.replicas == 'a'"}]}`,
			want: []arv1.ExpressionWarning{{FieldRef: "spec.validations[0].expression",
				Warning: "stable.example.com/v1, Kind=Widget: ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(int, string)'\n | object.spec.replicas == 'a'\n | .....................^\n"}}},
		{name: "params typed", spec: `{"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},"matchConstraints":{"resourceRules":[` + widgets + `]},"validations":[{"expression":"params.data.x == 'y' && params.nope == 1"}]}`,
			want: []arv1.ExpressionWarning{{FieldRef: "spec.validations[0].expression",
				Warning: "stable.example.com/v1, Kind=Widget: ERROR: <input>:1:31: undefined field 'nope'\n | params.data.x == 'y' && params.nope == 1\n | ..............................^\n"}}},
		{name: "variables typed", spec: `{"matchConstraints":{"resourceRules":[` + widgets + `]},"variables":[{"name":"s","expression":"object.spec"}],"validations":[{"expression":"variables.s.size == 1"}]}`,
			want: []arv1.ExpressionWarning{{FieldRef: "spec.validations[0].expression",
				Warning: "stable.example.com/v1, Kind=Widget: ERROR: <input>:1:18: found no matching overload for '_==_' applied to '(string, int)'\n | variables.s.size == 1\n | .................^\n"}}},
		{name: "wildcards are not checked", spec: `{"matchConstraints":{"resourceRules":[{"apiGroups":["*"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["widgets"]}]},"validations":[{"expression":"object.spec.nope == 1"}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := c.TypeCheck(policy(tc.spec), srv)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

// TestSyncTypeChecking checks the controller's pass writes
// observedGeneration and the warnings in the policy's status, and
// leaves a policy whose generation was observed alone.
func TestSyncTypeChecking(t *testing.T) {
	srv := apiserver.New(apiserver.Options{})
	srv.Register(crdWidgetKind(t))
	c, err := celadm.NewCompiler()
	if err != nil {
		t.Fatal(err)
	}
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
	s.mustCreate(policiesPath, policy("p", `"failurePolicy":"Fail","validations":[{"expression":"object.spec.nope == 1"}]`))
	if err := c.SyncTypeChecking(context.Background(), srv, srv); err != nil {
		t.Fatal(err)
	}
	var got arv1.ValidatingAdmissionPolicy
	_ = json.Unmarshal([]byte(s.do("GET", policiesPath+"/p", "").body), &got)
	want := arv1.ValidatingAdmissionPolicyStatus{ObservedGeneration: 1, TypeChecking: &arv1.TypeChecking{ExpressionWarnings: []arv1.ExpressionWarning{{
		FieldRef: "spec.validations[0].expression",
		Warning:  "stable.example.com/v1, Kind=Widget: ERROR: <input>:1:12: undefined field 'nope'\n | object.spec.nope == 1\n | ...........^\n"}}}}
	if d := cmp.Diff(want, got.Status); d != "" {
		t.Errorf("status (-want +got)\n%s", d)
	}
	rv := got.ResourceVersion
	if err := c.SyncTypeChecking(context.Background(), srv, srv); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(s.do("GET", policiesPath+"/p", "").body), &got)
	if got.ResourceVersion != rv {
		t.Errorf("a second pass wrote the policy again: %s then %s", rv, got.ResourceVersion)
	}
}
