// Package namespace gives a kapi server kube's namespace life cycle: the
// admission check that keeps writes out of missing and terminating
// namespaces ([Lifecycle]), the immortal namespaces every server has
// ([EnsureSystem]), and the controller that empties a deleted namespace
// and lets it go ([Controller]), as kube-controller-manager's namespace
// controller does.
//
// A deleted namespace is marked Terminating and keeps the kubernetes
// finalizer in spec.finalizers. The controller deletes every object of
// every namespaced resource in it (their own finalizers are honoured: it
// waits for them), reports what remains in the NamespaceContentRemaining
// and NamespaceFinalizersRemaining conditions, and once nothing remains
// removes its finalizer through /finalize; the server then removes the
// namespace.
package namespace

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/controllers/internal/workqueue"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
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

// process takes one step of a namespace's deletion; again is true when
// content remains.
func (c *Controller) process(ctx context.Context, name string) (again bool, err error) {
	path := "/api/v1/namespaces/" + name
	var ns corev1.Namespace
	if err := c.c.Get(ctx, path, &ns); err != nil {
		if status.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	if ns.DeletionTimestamp == nil || !hasFinalizer(ns.Spec.Finalizers) {
		return false, nil
	}
	res, err := c.c.Resources(ctx)
	if err != nil {
		return true, c.setConditions(ctx, &ns, []corev1.NamespaceCondition{
			condition(corev1.NamespaceDeletionDiscoveryFailure, "True", "DiscoveryFailed", err.Error())})
	}
	left, deleteErrs := c.deleteContent(ctx, name, res)
	conds := []corev1.NamespaceCondition{
		condition(corev1.NamespaceDeletionDiscoveryFailure, "False", "ResourcesDiscovered", "All resources successfully discovered"),
		condition(corev1.NamespaceDeletionGVParsingFailure, "False", "ParsedGroupVersions", "All legacy kube types successfully parsed"),
		contentFailure(deleteErrs),
		left.contentCondition(),
		left.finalizersCondition(),
	}
	if err := c.setConditions(ctx, &ns, conds); err != nil {
		return true, err
	}
	if len(deleteErrs) > 0 || left.objects() > 0 {
		return true, nil
	}
	return false, c.finalize(ctx, &ns)
}

// deleteContent deletes every object of every namespaced resource in the
// namespace and reports what is left.
func (c *Controller) deleteContent(ctx context.Context, ns string, res []apiclient.Resource) (remaining, []string) {
	left := remaining{counts: map[string]int{}, finalizers: map[string]int{}}
	var errs []string
	background := meta.DeletePropagationBackground
	for _, r := range res {
		if !r.Namespaced || !r.Can("list", "delete") {
			continue
		}
		path := r.Path(ns)
		if r.Can("deletecollection") {
			if err := c.c.Delete(ctx, path, meta.DeleteOptions{PropagationPolicy: &background}); err != nil && !status.IsNotFound(err) {
				errs = append(errs, fmt.Sprintf("%s: %v", r.Resource, err))
			}
		}
		items, _, err := c.c.List(ctx, path, nil)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", r.Resource, err))
			continue
		}
		for _, it := range items {
			m := it.Metadata
			if m.DeletionTimestamp == nil {
				if err := c.c.Delete(ctx, r.ObjectPath(ns, m.Name), meta.DeleteOptions{PropagationPolicy: &background}); err != nil && !status.IsNotFound(err) {
					errs = append(errs, fmt.Sprintf("%s %s: %v", r.Resource, m.Name, err))
				}
			}
			left.counts[groupResource(r)]++
			for _, f := range m.Finalizers {
				left.finalizers[f]++
			}
		}
	}
	return left, errs
}

func groupResource(r apiclient.Resource) string { return r.Resource + "." + r.Group }

// remaining is what a namespace still holds.
type remaining struct {
	counts     map[string]int // resource.group → objects
	finalizers map[string]int // finalizer → objects holding it
}

func (r remaining) objects() int {
	n := 0
	for _, c := range r.counts {
		n += c
	}
	return n
}

func (r remaining) contentCondition() corev1.NamespaceCondition {
	if len(r.counts) == 0 {
		return condition(corev1.NamespaceContentRemaining, "False", "ContentRemoved", "All content successfully removed")
	}
	return condition(corev1.NamespaceContentRemaining, "True", "SomeResourcesRemain",
		"Some resources are remaining: "+describe(r.counts, "%s has %d resource instances"))
}

func (r remaining) finalizersCondition() corev1.NamespaceCondition {
	if len(r.finalizers) == 0 {
		return condition(corev1.NamespaceFinalizersRemaining, "False", "ContentHasNoFinalizers", "All content-preserving finalizers finished")
	}
	return condition(corev1.NamespaceFinalizersRemaining, "True", "SomeFinalizersRemain",
		"Some content in the namespace has finalizers remaining: "+describe(r.finalizers, "%s in %d resource instances"))
}

func describe(m map[string]int, format string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf(format, k, m[k])
	}
	return strings.Join(parts, ", ")
}

func contentFailure(errs []string) corev1.NamespaceCondition {
	if len(errs) == 0 {
		return condition(corev1.NamespaceDeletionContentFailure, "False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization")
	}
	return condition(corev1.NamespaceDeletionContentFailure, "True", "ContentDeletionFailed",
		"Failed to delete all resource types, "+fmt.Sprint(len(errs))+" remaining: "+strings.Join(errs, ", "))
}

func condition(typ, st, reason, msg string) corev1.NamespaceCondition {
	return corev1.NamespaceCondition{Type: typ, Status: st, Reason: reason, Message: msg}
}

// setConditions writes the conditions and the Terminating phase to
// /status when they changed; a condition keeps its transition time while
// its status stays.
func (c *Controller) setConditions(ctx context.Context, ns *corev1.Namespace, conds []corev1.NamespaceCondition) error {
	now := meta.Now()
	changed := ns.Status.Phase != corev1.NamespaceTerminating
	out := make([]corev1.NamespaceCondition, 0, len(conds))
	for _, nc := range conds {
		nc.LastTransitionTime = now
		for _, oc := range ns.Status.Conditions {
			if oc.Type == nc.Type && oc.Status == nc.Status {
				nc.LastTransitionTime = oc.LastTransitionTime
				changed = changed || oc.Reason != nc.Reason || oc.Message != nc.Message
			}
		}
		if !hasCondition(ns.Status.Conditions, nc.Type, nc.Status) {
			changed = true
		}
		out = append(out, nc)
	}
	if !changed {
		return nil
	}
	ns.Status.Phase, ns.Status.Conditions = corev1.NamespaceTerminating, out
	err := c.c.Update(ctx, "/api/v1/namespaces/"+ns.Name+"/status", ns)
	if status.IsNotFound(err) {
		return nil
	}
	return err
}

func hasCondition(conds []corev1.NamespaceCondition, typ, st string) bool {
	for _, c := range conds {
		if c.Type == typ && c.Status == st {
			return true
		}
	}
	return false
}

// finalize removes the kubernetes finalizer through /finalize.
func (c *Controller) finalize(ctx context.Context, ns *corev1.Namespace) error {
	var keep []string
	for _, f := range ns.Spec.Finalizers {
		if f != corev1.FinalizerKubernetes {
			keep = append(keep, f)
		}
	}
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

func hasFinalizer(fs []string) bool {
	for _, f := range fs {
		if f == corev1.FinalizerKubernetes {
			return true
		}
	}
	return false
}
