package crd

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
)

// TestCalculateNames checks the names a definition is given next to
// another of its group that holds plural "ones", singular "one", kind
// "One", listKind "OneList" and short names "o1", "ox": the names and
// NamesAccepted condition are kube-apiserver v1.37's for the same
// definitions (the last conflict is the reason; names in conflict are
// not accepted, the others are).
func TestCalculateNames(t *testing.T) {
	type names = apiextensionsv1.CustomResourceDefinitionNames
	taken := apiextensionsv1.CustomResourceDefinition{Status: apiextensionsv1.CustomResourceDefinitionStatus{
		AcceptedNames: names{Plural: "ones", Singular: "one", ShortNames: []string{"o1", "ox"}, Kind: "One", ListKind: "OneList"}}}
	tests := []struct {
		name                    string
		want                    names
		accepted                names
		status, reason, message string
	}{
		{"plural is another's singular", names{Plural: "one", Singular: "twox", Kind: "Two", ListKind: "TwoList"},
			names{Singular: "twox", Kind: "Two", ListKind: "TwoList"}, "False", "PluralConflict", `"one" is already in use`},
		{"singular is another's plural", names{Plural: "threes", Singular: "ones", Kind: "Three", ListKind: "ThreeList"},
			names{Plural: "threes", Kind: "Three", ListKind: "ThreeList"}, "False", "SingularConflict", `"ones" is already in use`},
		{"kind taken, and so its list kind", names{Plural: "fours", Singular: "four", Kind: "One", ListKind: "OneList"},
			names{Plural: "fours", Singular: "four"}, "False", "ListKindConflict", `"OneList" is already in use`},
		{"list kind taken", names{Plural: "fives", Singular: "five", Kind: "Five", ListKind: "OneList"},
			names{Plural: "fives", Singular: "five", Kind: "Five"}, "False", "ListKindConflict", `"OneList" is already in use`},
		{"short names taken", names{Plural: "sixes", Singular: "six", Kind: "Six", ListKind: "SixList", ShortNames: []string{"o1", "ox", "ok6"}},
			names{Plural: "sixes", Singular: "six", Kind: "Six", ListKind: "SixList"}, "False", "ShortNamesConflict", `["o1" is already in use, "ox" is already in use]`},
		{"kind and list kind swapped, a short name another's plural", names{Plural: "sevens", Singular: "seven", Kind: "OneList", ListKind: "One", ShortNames: []string{"ones"}},
			names{Plural: "sevens", Singular: "seven"}, "False", "ListKindConflict", `"One" is already in use`},
		{"no conflict", names{Plural: "nines", Singular: "nine", Kind: "Nine", ListKind: "NineList", ShortNames: []string{"n9"}},
			names{Plural: "nines", Singular: "nine", Kind: "Nine", ListKind: "NineList", ShortNames: []string{"n9"}}, "True", "NoConflicts", "no conflicts found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{Names: tc.want}}
			got, cond, _ := calculateNames(crd, []apiextensionsv1.CustomResourceDefinition{taken})
			if diff := cmp.Diff(tc.accepted, got); diff != "" {
				t.Errorf("accepted names (-kube-apiserver +kapi):\n%s", diff)
			}
			if diff := cmp.Diff([]string{tc.status, tc.reason, tc.message}, []string{cond.Status, cond.Reason, cond.Message}); diff != "" {
				t.Errorf("NamesAccepted (-kube-apiserver +kapi):\n%s", diff)
			}
		})
	}
}
