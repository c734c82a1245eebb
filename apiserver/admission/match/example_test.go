package match_test

import (
	"context"
	"fmt"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/apiserver/admission/match"
	ar "github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/meta"
)

// A webhook's rules and object selector decide whether a Widget create
// is shown to it.
func ExampleMatch() {
	sel, _ := match.SelectorOf(&ar.LabelSelector{MatchLabels: map[string]string{"team": "a"}})
	c := &match.Criteria{
		Rules: []ar.RuleWithOperations{{
			Operations: []ar.OperationType{ar.Create},
			Rule:       ar.Rule{APIGroups: []string{"stable.example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}},
		}},
		ObjectSelector: sel,
	}
	for _, team := range []string{"a", "b"} {
		obj := &meta.Unstructured{}
		obj.GetObjectMeta().Labels = map[string]string{"team": team}
		a := &admission.Request{
			Operation: admission.Create, Namespaced: true, Namespace: "default", Name: "w",
			Kind:     meta.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "Widget"},
			Resource: meta.GroupResource{Group: "stable.example.com", Resource: "widgets"},
			Object:   obj,
		}
		res, err := match.Match(context.Background(), a, c, nil)
		fmt.Println(team, res.Matched, err)
	}
	// Output:
	// a true <nil>
	// b false <nil>
}
