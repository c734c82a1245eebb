package controllers_test

import (
	"context"
	"fmt"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/controllers"
	"github.com/kapi-dev/kapi/controllers/leader"
	"github.com/kapi-dev/kapi/controllers/namespace"
	"github.com/kapi-dev/kapi/kinds/coordinationv1"
	"github.com/kapi-dev/kapi/kinds/corev1"
)

// A host turns the control plane on: the namespace check in admission,
// the core kinds and Leases, and the controllers, run by whichever server
// holds the Lease.
func Example() {
	lc := namespace.NewLifecycle()
	srv := apiserver.New(apiserver.Options{MutatingAdmission: []apiserver.AdmissionFunc{lc.Admit}})
	for _, k := range corev1.Kinds() {
		srv.Register(k)
	}
	srv.Register(coordinationv1.LeaseKind())
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go lc.Run(ctx, srv)
	go func() {
		_ = controllers.Run(ctx, srv, controllers.Options{Election: leader.Options{Identity: "server-1"}})
	}()
	for ctx.Err() == nil {
		var lease coordinationv1.Lease
		if err := getJSON(srv, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kapi-controllers", &lease); err == nil {
			fmt.Println("held by", *lease.Spec.HolderIdentity)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Output: held by server-1
}
