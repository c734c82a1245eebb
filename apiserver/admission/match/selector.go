package match

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
)

// SelectorRequirement is one matchExpressions entry of a label selector
// as configurations carry it: Key, Operator (In, NotIn, Exists,
// DoesNotExist) and Values.
type SelectorRequirement struct {
	Key      string
	Operator string
	Values   []string
}

// SelectorFromWire turns the wire form of a label selector (matchLabels
// and matchExpressions, all ANDed) into the selector Criteria take, as
// kube's LabelSelectorAsSelector does; empty parts select everything.
func SelectorFromWire(matchLabels map[string]string, exprs []SelectorRequirement) (*meta.LabelSelector, error) {
	terms := make([]string, 0, len(matchLabels)+len(exprs))
	keys := make([]string, 0, len(matchLabels))
	for k := range matchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		terms = append(terms, k+"="+matchLabels[k])
	}
	for _, e := range exprs {
		switch e.Operator {
		case "In":
			terms = append(terms, e.Key+" in ("+strings.Join(e.Values, ",")+")")
		case "NotIn":
			terms = append(terms, e.Key+" notin ("+strings.Join(e.Values, ",")+")")
		case "Exists":
			terms = append(terms, e.Key)
		case "DoesNotExist":
			terms = append(terms, "!"+e.Key)
		default:
			return nil, fmt.Errorf("%q is not a valid label selector operator", e.Operator)
		}
	}
	s, err := meta.ParseLabelSelector(strings.Join(terms, ","))
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// SelectorOf is the parsed form of a configuration's selector: nil (a
// selector left out) selects everything, as Criteria read it.
func SelectorOf(s *admissionregistrationv1.LabelSelector) (*meta.LabelSelector, error) {
	if s == nil {
		return nil, nil
	}
	exprs := make([]SelectorRequirement, len(s.MatchExpressions))
	for i, e := range s.MatchExpressions {
		exprs[i] = SelectorRequirement{Key: e.Key, Operator: e.Operator, Values: e.Values}
	}
	return SelectorFromWire(s.MatchLabels, exprs)
}
