package match_test

import (
	"testing"

	"github.com/kapi-dev/kapi/apiserver/admission/match"
)

// The wire form selects as kube's LabelSelectorAsSelector: matchLabels
// and every expression ANDed.
func TestSelectorFromWire(t *testing.T) {
	s, err := match.SelectorFromWire(map[string]string{"aw-test": "true"}, []match.SelectorRequirement{
		{Key: "tier", Operator: "In", Values: []string{"a", "b"}},
		{Key: "canary", Operator: "DoesNotExist"},
		{Key: "env", Operator: "NotIn", Values: []string{"prod"}},
		{Key: "team", Operator: "Exists"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		labels map[string]string
		want   bool
	}{
		{map[string]string{"aw-test": "true", "tier": "a", "team": "x"}, true},
		{map[string]string{"aw-test": "true", "tier": "b", "team": "x", "env": "dev"}, true},
		{map[string]string{"aw-test": "false", "tier": "a", "team": "x"}, false},
		{map[string]string{"aw-test": "true", "tier": "c", "team": "x"}, false},
		{map[string]string{"aw-test": "true", "tier": "a", "team": "x", "canary": ""}, false},
		{map[string]string{"aw-test": "true", "tier": "a", "team": "x", "env": "prod"}, false},
		{map[string]string{"aw-test": "true", "tier": "a"}, false},
	} {
		if got := s.Matches(tc.labels); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.labels, got, tc.want)
		}
	}
	if e, err := match.SelectorFromWire(nil, nil); err != nil || !e.Empty() {
		t.Errorf("empty selector: %v %v", e, err)
	}
	if _, err := match.SelectorFromWire(nil, []match.SelectorRequirement{{Key: "a", Operator: "Near"}}); err == nil || err.Error() != `"Near" is not a valid label selector operator` {
		t.Errorf("bad operator: %v", err)
	}
}
