package webhook

import (
	"testing"

	"github.com/kapi-dev/kapi/meta"
)

// wireLabelSelector stands for a configuration's wire selector type.
type wireLabelSelector struct {
	MatchLabels      map[string]string `json:"matchLabels,omitempty"`
	MatchExpressions []struct {
		Key      string   `json:"key"`
		Operator string   `json:"operator"`
		Values   []string `json:"values,omitempty"`
	} `json:"matchExpressions,omitempty"`
}

// A configuration's selector is read from a parsed selector or from its
// wire form; a nil one selects everything; an operator kube does not
// know is an error.
func TestSelectorOf(t *testing.T) {
	parsed, _ := meta.ParseLabelSelector("a=b")
	w := &wireLabelSelector{MatchLabels: map[string]string{"aw-test": "true"}}
	w.MatchExpressions = append(w.MatchExpressions, struct {
		Key      string   `json:"key"`
		Operator string   `json:"operator"`
		Values   []string `json:"values,omitempty"`
	}{Key: "tier", Operator: "In", Values: []string{"a"}})
	for _, tc := range []struct {
		name   string
		in     any
		labels map[string]string
		want   bool
	}{
		{"parsed", &parsed, map[string]string{"a": "b"}, true},
		{"wire", w, map[string]string{"aw-test": "true", "tier": "a"}, true},
		{"wire, no match", w, map[string]string{"aw-test": "true", "tier": "b"}, false},
		{"empty wire", &wireLabelSelector{}, map[string]string{"x": "y"}, true},
	} {
		s, err := selectorOf(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := s.Matches(tc.labels); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if s, err := selectorOf((*wireLabelSelector)(nil)); s != nil || err != nil {
		t.Errorf("nil: %v %v", s, err)
	}
	bad := &wireLabelSelector{}
	bad.MatchExpressions = append(bad.MatchExpressions, struct {
		Key      string   `json:"key"`
		Operator string   `json:"operator"`
		Values   []string `json:"values,omitempty"`
	}{Key: "a", Operator: "Near"})
	if _, err := selectorOf(bad); err == nil {
		t.Error("an unknown operator parsed")
	}
}
