// Package controllers runs kapi's built-in controllers in a server: the
// garbage collector (package controllers/gc) and the namespace controller
// (package controllers/namespace), in one server at a time among those
// sharing a store, elected over a coordination.k8s.io/v1 Lease (package
// controllers/leader).
//
// The controllers talk to the server through its own handler, so their
// writes take the path clients' writes take and their reads come from the
// watch cache. The server must serve Namespaces and Leases (packages
// kinds/corev1 and kinds/coordinationv1).
package controllers

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/controllers/gc"
	"github.com/kapi-dev/kapi/controllers/leader"
	"github.com/kapi-dev/kapi/controllers/namespace"
)

// Options configures Run.
type Options struct {
	// Election configures the leader election; its Identity is
	// required.
	Election leader.Options
	// Logger receives the controllers' retries and transitions; default:
	// discard.
	Logger *slog.Logger
}

// Run creates the immortal namespaces, then runs the controllers
// whenever this server is the leader, until ctx is done.
func Run(ctx context.Context, h http.Handler, opts Options) error {
	if err := namespace.EnsureSystem(ctx, h); err != nil {
		return err
	}
	if opts.Election.Logger == nil {
		opts.Election.Logger = opts.Logger
	}
	return leader.Run(ctx, h, opts.Election, func(ctx context.Context) {
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			// The collector stops when it cannot discover the resources;
			// it is started again after a pause.
			for ctx.Err() == nil {
				if err := gc.New(h, gc.Options{Logger: opts.Logger}).Run(ctx); err != nil && opts.Logger != nil {
					opts.Logger.Error("garbage collector stopped", "err", err)
				}
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
		}()
		go func() {
			defer wg.Done()
			namespace.New(h, namespace.Options{Logger: opts.Logger}).Run(ctx)
		}()
		wg.Wait()
	})
}
