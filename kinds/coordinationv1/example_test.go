package coordinationv1_test

import (
	"fmt"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/kinds/coordinationv1"
)

// Serve Leases next to a host's own kinds, so that its controllers can
// elect a leader through the same server.
func Example() {
	srv := apiserver.New(apiserver.Options{})
	defer srv.Close()
	srv.Register(coordinationv1.LeaseKind())
	fmt.Println(srv.Err())
	// Output: <nil>
}
