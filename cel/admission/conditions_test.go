package admission

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/auth"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
)

// TestConditions checks matchConditions see kube's variables, skip on
// the first false condition, and report evaluation and compile errors
// worded as kube-apiserver words them.
func TestConditions(t *testing.T) {
	c, err := NewCompiler()
	if err != nil {
		t.Fatal(err)
	}
	in := &Input{
		Object:  map[string]any{"metadata": map[string]any{"name": "w1", "labels": map[string]any{"env": "prod"}}, "spec": map[string]any{"replicas": int64(3)}},
		Request: map[string]any{"operation": "CREATE", "userInfo": map[string]any{"username": "alice"}, "namespace": "ns1"},
		User:    &auth.User{Name: "alice"},
		Authorizer: auth.AuthorizerFunc(func(_ context.Context, a auth.Attributes) (auth.Decision, string, error) {
			if a.Resource == "widgets" && a.Verb == "approve" && a.User.Name == "alice" {
				return auth.DecisionAllow, "", nil
			}
			return auth.DecisionNoOpinion, "no rule", nil
		}),
		Resource: GVR{Group: "stable.example.com", Version: "v1", Resource: "widgets"}, Namespace: "ns1", Name: "w1",
	}
	type want struct {
		Matched bool
		Failed  string
		Err     string
	}
	tests := []struct {
		name  string
		exprs []string
		want  want
	}{
		{"all true", []string{"object.spec.replicas + 1 == 4", "request.operation == 'CREATE'", "oldObject == null"}, want{Matched: true}},
		{"first false wins", []string{"object.nope == 1", "object.metadata.labels.env == 'dev'"}, want{Failed: "c1"}},
		{"error", []string{"object.nope == 1", "true"}, want{Err: "expression 'object.nope == 1' resulted in error: no such key: nope"}},
		{"two errors", []string{"object.nope == 1", "object.nada == 2"}, want{Err: "[expression 'object.nope == 1' resulted in error: no such key: nope, expression 'object.nada == 2' resulted in error: no such key: nada]"}},
		{"not bool", []string{"'x'"}, want{Err: "compilation error: must evaluate to bool but got string"}},
		{"no params for webhooks", []string{"params == null"}, want{Err: "compilation error: compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params == null\n | ^"}},
		{"authorizer", []string{"authorizer.group('stable.example.com').resource('widgets').check('approve').allowed()", "!authorizer.path('/x').check('get').allowed()", "authorizer.path('/x').check('get').reason() == 'no rule'"}, want{Matched: true}},
		{"requestResource", []string{"authorizer.requestResource.check('approve').allowed()", "!authorizer.requestResource.check('delete').allowed()"}, want{Matched: true}},
		{"libraries", []string{"'a,b'.split(',').size() == 2", "'abc'.matches('^a')", "isURL('https://x.io')", "[1,2].isSorted()"}, want{Matched: true}},
		{"cost", []string{"[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))"},
			want{Err: "expression '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, true))))))' resulted in error: operation cancelled: actual cost limit exceeded"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var conds []arv1.MatchCondition
			for i, e := range tc.exprs {
				conds = append(conds, arv1.MatchCondition{Name: "c" + string(rune('0'+i)), Expression: e})
			}
			cs, err := c.CompileConditions(conds)
			if err != nil {
				t.Fatal(err)
			}
			m, f, err := cs.Match(context.Background(), in)
			got := want{Matched: m, Failed: f}
			if err != nil {
				got.Err = err.Error()
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}
