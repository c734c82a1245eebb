// Package namespace gives a kapi server kube's namespace life cycle: the
// admission check that keeps writes out of missing and terminating
// namespaces ([Lifecycle]), the immortal namespaces every server has
// ([EnsureSystem]), and the controller that empties a deleted namespace
// and lets it go ([Controller]), as kube-controller-manager's namespace
// controller does.
//
// A deleted namespace is marked Terminating and keeps the kubernetes
// finalizer in spec.finalizers. The controller deletes every object of
// every namespaced resource in it, in one version of each as discovery
// prefers (their own finalizers are honoured: it waits for them), and
// reports how that goes in the five conditions kube's controller keeps
// (NamespaceDeletionDiscoveryFailure,
// NamespaceDeletionGroupVersionParsingFailure,
// NamespaceDeletionContentFailure, NamespaceContentRemaining and
// NamespaceFinalizersRemaining), with kube's reasons and messages. Once
// nothing remains and nothing failed it removes its finalizer through
// /finalize; the server then removes the namespace.
package namespace

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"time"

	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/controllers/internal/workqueue"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/status"
)

// Options configures a Controller.
type Options struct {
	// Workers is how many namespaces are emptied at once; default 2.
	Workers int
	// Logger receives errors that are retried; default: discard.
	Logger *slog.Logger
}

// Controller empties deleted namespaces.
type Controller struct {
	c     *apiclient.Client
	opts  Options
	queue *workqueue.Queue
}

// New returns a Controller of the server whose handler is h.
func New(h http.Handler, opts Options) *Controller {
	if opts.Workers <= 0 {
		opts.Workers = 2
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Controller{c: apiclient.New(h), opts: opts, queue: workqueue.New()}
}

// Run empties deleted namespaces until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	rf := c.c.NewReflector("/api/v1/namespaces", func(typ string, obj *apiclient.Object) {
		if typ != "DELETED" && obj.Metadata.DeletionTimestamp != nil {
			c.queue.Add(obj.Metadata.Name)
		}
	}, nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		rf.Run(ctx)
	}()
	workers := make(chan struct{}, c.opts.Workers)
	for range c.opts.Workers {
		go func() {
			defer func() { workers <- struct{}{} }()
			c.work(ctx)
		}()
	}
	<-ctx.Done()
	c.queue.Close()
	for range c.opts.Workers {
		<-workers
	}
	<-done
}

// work processes namespaces until the queue closes. A namespace that
// still has content is looked at again after a pause that grows with
// each attempt, up to 5 seconds.
func (c *Controller) work(ctx context.Context) {
	attempts := map[string]int{}
	for {
		name, ok := c.queue.Get()
		if !ok {
			return
		}
		again, err := c.process(ctx, name)
		c.queue.Done(name)
		if err != nil && ctx.Err() == nil {
			c.opts.Logger.Info("namespace deletion will retry", "namespace", name, "err", err)
			again = true
		}
		if !again {
			delete(attempts, name)
			continue
		}
		attempts[name]++
		delay := min(50*time.Millisecond<<min(attempts[name], 7), 5*time.Second)
		c.queue.AddAfter(name, delay)
	}
}

// process takes one step of a namespace's deletion, as kube's namespace
// controller does: it deletes the namespace's content, reports how that
// goes in the namespace's conditions and, once nothing remains, removes
// the kubernetes finalizer. again is true when content remains.
func (c *Controller) process(ctx context.Context, name string) (again bool, err error) {
	path := "/api/v1/namespaces/" + name
	var ns corev1.Namespace
	if err := c.c.Get(ctx, path, &ns); err != nil {
		if status.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	if ns.DeletionTimestamp == nil || len(ns.Spec.Finalizers) == 0 {
		return false, nil
	}
	var report conditionReport
	res, err := c.c.Resources(ctx)
	if err != nil {
		// Discovery that fails for some groups still gives the others,
		// whose content is deleted: the failure is reported and the
		// namespace looked at again.
		report.discoveryFailed(err)
	}
	left := c.deleteContent(ctx, name, apiclient.PreferredResources(res), &report)
	if err := c.setConditions(ctx, &ns, report.conditions(left)); err != nil {
		return true, err
	}
	if report.failed() || left.objects() > 0 {
		return true, nil
	}
	return false, c.finalize(ctx, &ns)
}

// finalize removes the kubernetes finalizer through /finalize; the
// namespace's other spec finalizers stay, sorted, as kube's namespace
// controller leaves them.
func (c *Controller) finalize(ctx context.Context, ns *corev1.Namespace) error {
	keep := []string{}
	for _, f := range ns.Spec.Finalizers {
		if f != corev1.FinalizerKubernetes && !slices.Contains(keep, f) {
			keep = append(keep, f)
		}
	}
	sort.Strings(keep)
	ns.Spec.Finalizers = keep
	b, err := json.Marshal(ns)
	if err != nil {
		return err
	}
	_, err = c.c.Do(ctx, http.MethodPut, "/api/v1/namespaces/"+ns.Name+"/finalize", "application/json", b)
	if status.IsNotFound(err) {
		return nil
	}
	return err
}
