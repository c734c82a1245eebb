package leader_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/controllers/leader"
	"github.com/kapi-dev/kapi/kinds/coordinationv1"
)

// Run work in one server at a time: lead is called while this server
// holds the Lease.
func Example() {
	srv := apiserver.New(apiserver.Options{}).Register(coordinationv1.LeaseKind())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = leader.Run(ctx, srv, leader.Options{Identity: "server-1"}, func(ctx context.Context) {
		fmt.Println("leading")
		cancel()
	})
	// Output: leading
}
