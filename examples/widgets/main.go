// Command widgets serves the Widget and Gadget example kinds with kapi.
//
//	go run ./widgets --addr 127.0.0.1:8080 --kubeconfig ./kapi.kubeconfig
//	KUBECONFIG=./kapi.kubeconfig kubectl get widgets
//
// --help lists the flags. The Widget it serves carries the CEL rules the
// doc of package api lists: they bind spec.serial alone, beyond the Widget
// contract, so every write the contract allows is accepted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/kapi-dev/kapi/examples/widgets/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run serves until ctx is done and returns the exit code: 0 when the
// server stopped cleanly or --help printed the flags, 1 on an error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := server.Run(ctx, args, stdout, stderr)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "widgets:", err)
	return 1
}
