package requestinfo_test

import (
	"fmt"
	"net/http/httptest"

	"github.com/kapi-dev/kapi/apiserver/requestinfo"
)

// A request's authorization attributes come from its method, path and
// query, as kube-apiserver's request info reads them.
func ExampleAttributesOf() {
	r := httptest.NewRequest("GET", "/apis/stable.example.com/v1/namespaces/ns1/widgets?watch=true", nil)
	a := requestinfo.AttributesOf(r, nil)
	fmt.Println(a.Verb, a.APIGroup, a.Resource, a.Namespace)
	fmt.Println(requestinfo.Classify(r).LongRunning)
	// Output:
	// watch stable.example.com widgets ns1
	// true
}
