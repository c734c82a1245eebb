package eventsv1_test

import (
	"fmt"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/eventsv1"
)

// Serve events.k8s.io/v1 Events, where client-go's events broadcaster
// posts them.
func Example() {
	srv := apiserver.New(apiserver.Options{})
	defer srv.Close()
	srv.Register(eventsv1.EventKind())
	fmt.Println(srv.Err())
	// Output: <nil>
}
