package admissionregistrationv1

import (
	"fmt"
	"slices"
)

// Matches reports whether labels satisfy s, as meta/v1's
// LabelSelectorAsSelector reads a selector: every matchLabels pair and
// every requirement (In, NotIn, Exists, DoesNotExist) must hold; an
// empty selector matches everything and a nil one nothing. An unknown
// operator is an error (validation refuses it on write).
func (s *LabelSelector) Matches(labels map[string]string) (bool, error) {
	if s == nil {
		return false, nil
	}
	for k, v := range s.MatchLabels {
		if got, ok := labels[k]; !ok || got != v {
			return false, nil
		}
	}
	for _, r := range s.MatchExpressions {
		v, ok := labels[r.Key]
		var holds bool
		switch r.Operator {
		case "In":
			holds = ok && slices.Contains(r.Values, v)
		case "NotIn":
			holds = !ok || !slices.Contains(r.Values, v)
		case "Exists":
			holds = ok
		case "DoesNotExist":
			holds = !ok
		default:
			return false, fmt.Errorf("%q is not a valid label selector operator", r.Operator)
		}
		if !holds {
			return false, nil
		}
	}
	return true, nil
}
