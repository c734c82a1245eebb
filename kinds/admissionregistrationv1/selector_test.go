package admissionregistrationv1

import "testing"

func TestSelectorMatches(t *testing.T) {
	labels := map[string]string{"env": "prod", "tier": "web"}
	for _, tc := range []struct {
		name string
		sel  *LabelSelector
		want bool
		err  bool
	}{
		{"nil matches nothing", nil, false, false},
		{"empty matches everything", &LabelSelector{}, true, false},
		{"matchLabels", &LabelSelector{MatchLabels: map[string]string{"env": "prod"}}, true, false},
		{"matchLabels other value", &LabelSelector{MatchLabels: map[string]string{"env": "dev"}}, false, false},
		{"In", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: "In", Values: []string{"web", "db"}}}}, true, false},
		{"NotIn", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "tier", Operator: "NotIn", Values: []string{"web"}}}}, false, false},
		{"NotIn absent key", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "zone", Operator: "NotIn", Values: []string{"a"}}}}, true, false},
		{"Exists", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "env", Operator: "Exists"}}}, true, false},
		{"DoesNotExist", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "env", Operator: "DoesNotExist"}}}, false, false},
		{"bad operator", &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "env", Operator: "Near"}}}, false, true},
	} {
		got, err := tc.sel.Matches(labels)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("%s: %v, %v; want %v, error %v", tc.name, got, err, tc.want, tc.err)
		}
	}
}
