package admission_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/meta"
)

// outcome is what a test compares of an answer.
type outcome struct {
	Code     int
	Reason   meta.StatusReason
	Message  string
	Causes   []meta.StatusCause
	Warnings []string
}

func outcomeOf(r response) outcome {
	o := outcome{Code: r.code, Warnings: r.warnings}
	if r.code >= 300 {
		o.Reason, o.Message = r.status.Reason, r.status.Message
		if r.status.Details != nil {
			o.Causes = r.status.Details.Causes
		}
	}
	return o
}

// denied is kube's answer to a widget w denied by policy p's binding b.
func denied(code int, reason meta.StatusReason, w, p, b, msg string) outcome {
	inner := "ValidatingAdmissionPolicy '" + p + "' with binding '" + b + "' denied request: " + msg
	return outcome{Code: code, Reason: reason, Message: `widgets.stable.example.com "` + w + `" is forbidden: ` + inner,
		Causes: []meta.StatusCause{{Message: inner}}}
}

// TestValidatingPolicies checks each feature of ValidatingAdmissionPolicy
// against kube-apiserver's answers: the denial's code, reason, message
// and cause, and the warnings.
func TestValidatingPolicies(t *testing.T) {
	tests := []struct {
		name    string
		policy  string // spec fields after matchConstraints
		binding string // spec fields after policyName
		params  []string
		widget  string
		want    outcome
	}{
		{name: "allowed", policy: `"validations":[{"expression":"object.spec.replicas <= 5"}]`,
			binding: `"validationActions":["Deny"]`, widget: widgetJSON("w", 3, "red"),
			want: outcome{Code: http.StatusCreated}},
		{name: "failed expression", policy: `"validations":[{"expression":"object.spec.replicas <= 5"}]`,
			binding: `"validationActions":["Deny"]`, widget: widgetJSON("w", 7, "red"),
			want: denied(422, meta.StatusReasonInvalid, "w", "p", "b", "failed expression: object.spec.replicas <= 5")},
		{name: "message and reason", policy: `"validations":[{"expression":"object.spec.replicas <= 5","message":" too many ","reason":"Forbidden"}]`,
			binding: `"validationActions":["Deny"]`, widget: widgetJSON("w", 7, "red"),
			want: denied(403, meta.StatusReasonForbidden, "w", "p", "b", "too many")},
		{name: "messageExpression and variables", policy: `"variables":[{"name":"max","expression":"5"},{"name":"over","expression":"object.spec.replicas > variables.max"}],
			"validations":[{"expression":"!variables.over","messageExpression":"'replicas ' + string(object.spec.replicas) + ' > ' + string(variables.max)","message":"static","reason":"Unauthorized"}]`,
			binding: `"validationActions":["Deny"]`, widget: widgetJSON("w", 7, "red"),
			want: denied(401, meta.StatusReasonUnauthorized, "w", "p", "b", "replicas 7 > 5")},
		{name: "messageExpression error falls back", policy: `"validations":[{"expression":"false","messageExpression":"object.nope","message":"static","reason":"RequestEntityTooLarge"}]`,
			binding: `"validationActions":["Deny"]`, widget: widgetJSON("w", 1, "red"),
			want: denied(413, meta.StatusReasonRequestEntityTooLarge, "w", "p", "b", "static")},
		{name: "warn", policy: `"validations":[{"expression":"object.spec.color != 'red'","message":"no red"}]`,
			binding: `"validationActions":["Warn"]`, widget: widgetJSON("w", 1, "red"),
			want: outcome{Code: http.StatusCreated, Warnings: []string{`299 - "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': no red"`}}},
		{name: "audit only", policy: `"validations":[{"expression":"object.spec.color != 'red'","message":"no red"}]`,
			binding: `"validationActions":["Audit"]`, widget: widgetJSON("w", 1, "red"),
			want: outcome{Code: http.StatusCreated}},
		{name: "evaluation error fails closed", policy: `"validations":[{"expression":"object.spec.nope == 1"}]`,
			binding: `"validationActions":["Deny"]`, widget: widgetJSON("w", 1, "red"),
			want: denied(422, meta.StatusReasonInvalid, "w", "p", "b", "expression 'object.spec.nope == 1' resulted in error: no such key: nope")},
		{name: "evaluation error ignored", policy: `"failurePolicy":"Ignore","validations":[{"expression":"object.spec.nope == 1"}]`,
			binding: `"validationActions":["Deny"]`, widget: widgetJSON("w", 1, "red"),
			want: outcome{Code: http.StatusCreated}},
		{name: "compile error fails closed", policy: `"validations":[{"expression":"nope == 1"}]`,
			binding: `"validationActions":["Deny"]`, widget: widgetJSON("w", 1, "red"),
			want: denied(422, meta.StatusReasonInvalid, "w", "p", "b", "compilation error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope == 1\n | ^")},
		{name: "matchConditions skip", policy: `"matchConditions":[{"name":"only-blue","expression":"object.spec.color == 'blue'"}],"validations":[{"expression":"false"}]`,
			binding: `"validationActions":["Deny"]`, widget: widgetJSON("w", 1, "red"),
			want: outcome{Code: http.StatusCreated}},
		{name: "params by name", policy: `"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},"validations":[{"expression":"string(object.spec.replicas) == params.data.replicas","messageExpression":"'want ' + params.data.replicas"}]`,
			binding: `"paramRef":{"name":"limits","parameterNotFoundAction":"Deny"},"validationActions":["Deny"]`,
			params:  []string{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"limits","namespace":"ap-ns"},"data":{"replicas":"2"}}`},
			widget:  widgetJSON("w", 1, "red"),
			want:    denied(422, meta.StatusReasonInvalid, "w", "p", "b", "want 2")},
		{name: "params missing deny", policy: `"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},"validations":[{"expression":"true"}]`,
			binding: `"paramRef":{"name":"absent","parameterNotFoundAction":"Deny"},"validationActions":["Deny"]`,
			widget:  widgetJSON("w", 1, "red"),
			want:    denied(422, meta.StatusReasonInvalid, "w", "p", "b", "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction")},
		{name: "params missing allow", policy: `"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},"validations":[{"expression":"false"}]`,
			binding: `"paramRef":{"name":"absent","parameterNotFoundAction":"Allow"},"validationActions":["Deny"]`,
			widget:  widgetJSON("w", 1, "red"),
			want:    outcome{Code: http.StatusCreated}},
		{name: "paramKind not served", policy: `"paramKind":{"apiVersion":"example.com/v1","kind":"Nothing"},"validations":[{"expression":"true"}]`,
			binding: `"paramRef":{"name":"x"},"validationActions":["Deny"]`, widget: widgetJSON("w", 1, "red"),
			want: outcome{Code: 422, Reason: meta.StatusReasonInvalid,
				Message: `widgets.stable.example.com "w" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nothing'`,
				Causes:  []meta.StatusCause{{Message: `ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nothing'`}}}},
		{name: "audit annotation of wrong type", policy: `"validations":[{"expression":"true"}],"auditAnnotations":[{"key":"k","valueExpression":"1"}]`,
			binding: `"validationActions":["Deny"]`, widget: widgetJSON("w", 1, "red"),
			want: denied(422, meta.StatusReasonInvalid, "w", "p", "b", "compilation error: must evaluate to one of [string null_type] but got int")},
		{name: "cost exceeded", policy: `"validations":[{"expression":"[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))"}]`,
			binding: `"validationActions":["Deny"]`, widget: widgetJSON("w", 1, "red"),
			want: denied(422, meta.StatusReasonInvalid, "w", "p", "b", "expression '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))' resulted in error: operation cancelled: actual cost limit exceeded")},
		{name: "audit annotation of dyn type", policy: `"validations":[{"expression":"true"}],"auditAnnotations":[{"key":"k","valueExpression":"object.spec.color"}]`,
			binding: `"validationActions":["Deny"]`, widget: widgetJSON("w", 1, "red"),
			want: denied(422, meta.StatusReasonInvalid, "w", "p", "b", "compilation error: must evaluate to one of [string null_type] but got dyn")},
		{name: "binding to a missing policy", policy: `"validations":[{"expression":"false"}]`,
			binding: `"validationActions":["Deny"]`, widget: widgetJSON("w", 1, "red"),
			want: outcome{Code: http.StatusCreated}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t)
			s.mustCreate("/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"ap-ns"}}`)
			for _, p := range tc.params {
				s.mustCreate("/api/v1/namespaces/ap-ns/configmaps", p)
			}
			s.mustCreate(policiesPath, policy("p", tc.policy))
			policyName := "p"
			if tc.name == "binding to a missing policy" {
				policyName = "absent"
			}
			s.mustCreate(bindingsPath, binding("b", policyName, tc.binding))
			got := outcomeOf(s.do("POST", widgetsPath, tc.widget))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}
