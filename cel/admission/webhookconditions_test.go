package admission

import (
	"context"
	"testing"

	"github.com/kapi-dev/kapi/apiserver/admission/match"
	arv1 "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
)

// The compiler the webhook plugin gets evaluates matchConditions on the
// plugin's input: a false condition is named, a true one matches.
func TestWebhookConditions(t *testing.T) {
	c, err := NewCompiler()
	if err != nil {
		t.Fatal(err)
	}
	conds, err := c.WebhookConditions().CompileConditions([]arv1.MatchCondition{
		{Name: "creates", Expression: "request.operation == 'CREATE'"},
		{Name: "big", Expression: "object.spec.replicas > 3"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		op       string
		replicas int64
		matched  bool
		failed   string
	}{
		{"CREATE", 5, true, ""},
		{"CREATE", 1, false, "big"},
		{"UPDATE", 5, false, "creates"},
	} {
		in := &match.ConditionInput{
			Object:   map[string]any{"spec": map[string]any{"replicas": tc.replicas}},
			Request:  map[string]any{"operation": tc.op},
			Resource: meta.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "widgets"},
		}
		matched, failed, err := conds.Match(context.Background(), in)
		if err != nil || matched != tc.matched || failed != tc.failed {
			t.Errorf("%s replicas %d: %v %q %v; want %v %q", tc.op, tc.replicas, matched, failed, err, tc.matched, tc.failed)
		}
	}
}
