package kinds_test

import (
	"fmt"

	"github.com/kapi-dev/kapi/apiserver/kinds"
	"github.com/kapi-dev/kapi/meta"
)

// A kind served in two versions, stored in v1, with a Table column and
// the scale subresource.
func ExampleKind() {
	k := kinds.Kind{
		Group: "stable.example.com", Kind: "Widget", Resource: "widgets", Namespaced: true,
		New: func() meta.Object { return new(meta.Unstructured) },
		Versions: []kinds.KindVersion{
			{Name: "v1", Storage: true},
			{Name: "v1beta1", Deprecated: true},
		},
		PrinterColumns: []kinds.PrinterColumn{{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"}, kinds.AgeColumn()},
		Subresources: kinds.Subresources{Status: true, Scale: &kinds.Scale{
			SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"}},
	}
	fmt.Println(k.GroupResource())
	for _, v := range k.Versions {
		k.Version = v.Name
		fmt.Println(k.GroupVersion(), k.GroupVersionKind().Kind)
	}
	// Output:
	// widgets.stable.example.com
	// stable.example.com/v1 Widget
	// stable.example.com/v1beta1 Widget
}
