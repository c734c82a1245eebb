package admission_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/meta"
)

// TestReferenceScenario replays requests made against kube-apiserver
// v1.37 with the same policies (a Deny binding with variables,
// messageExpression and reason; a Warn+Audit binding) and expects its
// answers, recorded from it.
func TestReferenceScenario(t *testing.T) {
	s := newTestServer(t)
	s.mustCreate("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ap-vap"}}`)
	rules := `"matchConstraints":{"resourceRules":[{"apiGroups":["stable.example.com"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["widgets"]}]},
		"matchConditions":[{"name":"only-ap","expression":"request.namespace == 'ap-vap'"}]`
	s.mustCreate(policiesPath, `{"metadata":{"name":"ap-vap-policy"},"spec":{"failurePolicy":"Fail",`+rules+`,
		"variables":[{"name":"max","expression":"5"}],
		"validations":[{"expression":"object.spec.replicas <= variables.max","messageExpression":"'replicas ' + string(object.spec.replicas) + ' exceeds ' + string(variables.max)","reason":"Forbidden"},
			{"expression":"object.spec.color != 'black'"}],
		"auditAnnotations":[{"key":"color","valueExpression":"string(object.spec.color)"}]}}`)
	s.mustCreate(bindingsPath, `{"metadata":{"name":"ap-vap-binding"},"spec":{"policyName":"ap-vap-policy","validationActions":["Deny"]}}`)
	s.mustCreate(policiesPath, `{"metadata":{"name":"ap-vap-warn"},"spec":{`+rules+`,
		"validations":[{"expression":"object.spec.color != 'red'","message":"red is discouraged"}]}}`)
	s.mustCreate(bindingsPath, `{"metadata":{"name":"ap-vap-warn-binding"},"spec":{"policyName":"ap-vap-warn","validationActions":["Warn","Audit"]}}`)

	deny := func(code int, reason meta.StatusReason, name, msg string) outcome {
		inner := "ValidatingAdmissionPolicy 'ap-vap-policy' with binding 'ap-vap-binding' denied request: " + msg
		return outcome{Code: code, Reason: reason, Message: `widgets.stable.example.com "` + name + `" is forbidden: ` + inner,
			Causes: []meta.StatusCause{{Message: inner}}}
	}
	tests := []struct {
		name, color string
		replicas    int
		want        outcome
	}{
		{"ap-ok", "blue", 3, outcome{Code: 201}},
		{"ap-many", "blue", 7, deny(403, meta.StatusReasonForbidden, "ap-many", "replicas 7 exceeds 5")},
		{"ap-black", "black", 2, deny(422, meta.StatusReasonInvalid, "ap-black", "failed expression: object.spec.color != 'black'")},
		{"ap-red", "red", 2, outcome{Code: 201, Warnings: []string{`299 - "Validation failed for ValidatingAdmissionPolicy 'ap-vap-warn' with binding 'ap-vap-warn-binding': red is discouraged"`}}},
	}
	for _, tc := range tests {
		got := outcomeOf(s.do("POST", "/apis/stable.example.com/v1/namespaces/ap-vap/widgets", widgetJSON(tc.name, tc.replicas, tc.color)))
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got)\n%s", tc.name, d)
		}
	}
}
