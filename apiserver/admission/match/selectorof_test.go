package match_test

import (
	"testing"

	"github.com/kapi-dev/kapi/apiserver/admission/match"
	ar "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
)

// A configuration's selector reads as kube's LabelSelectorAsSelector: a
// nil one selects everything (as Criteria take it), an empty one too, and
// an operator kube does not know is an error.
func TestSelectorOf(t *testing.T) {
	w := &ar.LabelSelector{MatchLabels: map[string]string{"aw-test": "true"},
		MatchExpressions: []ar.LabelSelectorRequirement{{Key: "tier", Operator: "In", Values: []string{"a"}}}}
	for _, tc := range []struct {
		name   string
		in     *ar.LabelSelector
		labels map[string]string
		want   bool
	}{
		{"match", w, map[string]string{"aw-test": "true", "tier": "a"}, true},
		{"no match", w, map[string]string{"aw-test": "true", "tier": "b"}, false},
		{"empty", &ar.LabelSelector{}, map[string]string{"x": "y"}, true},
	} {
		s, err := match.SelectorOf(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := s.Matches(tc.labels); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if s, err := match.SelectorOf(nil); s != nil || err != nil {
		t.Errorf("nil: %v %v", s, err)
	}
	bad := &ar.LabelSelector{MatchExpressions: []ar.LabelSelectorRequirement{{Key: "a", Operator: "Near"}}}
	if _, err := match.SelectorOf(bad); err == nil {
		t.Error("an unknown operator parsed")
	}
}
