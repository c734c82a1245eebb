// Command widgets serves the Widget and Gadget example kinds with kapi.
//
//	go run ./widgets --addr 127.0.0.1:8080 --kubeconfig ./kapi.kubeconfig
//	KUBECONFIG=./kapi.kubeconfig kubectl get widgets
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/kapi-dev/kapi/examples/widgets/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := server.Run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "widgets:", err)
		os.Exit(1)
	}
}
