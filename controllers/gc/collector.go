// Package gc is kapi's garbage collector: it deletes objects whose
// owners (metadata.ownerReferences) are gone, as kube-controller-manager's
// garbage collector does, between objects of any kinds a server serves.
//
// The collector mirrors the metadata of every served resource through
// list-and-watch (served from the watch cache; it never polls) into a
// graph of owners and dependents, and acts on the three deletion
// policies the server records with finalizers:
//
//   - Background: the owner is removed at once; its dependents are
//     deleted once the collector sees it gone.
//   - Foreground: the owner keeps the foregroundDeletion finalizer while
//     the collector deletes its dependents; it is removed once no
//     dependent with blockOwnerDeletion remains.
//   - Orphan: the owner keeps the orphan finalizer while the collector
//     removes the references to it from its dependents, then it goes.
//
// An object with several owners is deleted only when none of them
// remains. A namespaced owner owns only objects in its own namespace: it
// is looked for in its dependent's namespace, so a reference from
// another namespace is dangling there; a cluster-scoped object naming a
// namespaced owner names one that cannot be looked for anywhere, and the
// collector leaves it alone, as kube's does. When the owner such a
// reference names is in the graph, in another namespace, the collector
// records a Warning Event OwnerRefInvalidNamespace on the dependent (if
// the server serves core/v1 Events). An owner of a kind the server does
// not serve cannot be checked and is taken to exist. Every write goes
// through the server's handler like a client's.
//
// Run the collector in one server at a time (see package
// controllers/leader).
package gc

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/controllers/internal/workqueue"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Options configures a Collector.
type Options struct {
	// Workers is how many objects are processed at once; default 8.
	Workers int
	// Logger receives errors the collector retries; default: discard.
	Logger *slog.Logger
	// DiscoveryInterval is how often the served resources are looked at
	// again, for kinds installed or removed at run time; default 5
	// seconds.
	DiscoveryInterval time.Duration
}

// Collector is the garbage collector of one server.
type Collector struct {
	c      *apiclient.Client
	opts   Options
	log    *slog.Logger
	graph  *graph
	queue  *workqueue.Queue
	events *recorder

	mu      sync.RWMutex
	byKind  map[kindKey]*apiclient.Resource
	mirrors map[string]*mirror // by resource.group
	synced  bool
}

// kindKey names a kind at one version, as an owner reference does.
type kindKey struct{ apiVersion, kind string }

// New returns a Collector of the server whose handler is h.
func New(h http.Handler, opts Options) *Collector {
	if opts.Workers <= 0 {
		opts.Workers = 8
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.DiscoveryInterval <= 0 {
		opts.DiscoveryInterval = 5 * time.Second
	}
	c := apiclient.New(h)
	return &Collector{c: c, opts: opts, log: opts.Logger, graph: newGraph(), queue: workqueue.New(),
		events: newRecorder(c, opts.Logger), mirrors: map[string]*mirror{}}
}

// Run collects garbage until ctx is done. It discovers the served
// resources, mirrors each that can be listed, watched and deleted, and
// starts processing once every mirror has its first list. It looks at
// discovery again every Options.DiscoveryInterval, so that kinds
// installed while the server runs (the kinds of
// CustomResourceDefinitions) are collected too, and kinds gone are no
// longer mirrored.
func (c *Collector) Run(ctx context.Context) error {
	resources, err := c.c.Resources(ctx)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wg.Add(1)
	go func() {
		defer wg.Done()
		c.events.run(ctx)
	}()
	for _, s := range c.mirror(ctx, &wg, resources) {
		select {
		case <-s:
		case <-ctx.Done():
			return nil
		}
	}
	c.mu.Lock()
	c.synced = true
	c.mu.Unlock()
	for _, n := range c.graph.all() {
		c.check(n)
	}
	for range c.opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.work(ctx)
		}()
	}
	tick := time.NewTicker(c.opts.DiscoveryInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			c.queue.Close()
			return nil
		case <-tick.C:
			// A discovery that fails (a kind removed while it was read)
			// is tried again at the next tick.
			if resources, err := c.c.Resources(ctx); err == nil {
				c.mirror(ctx, &wg, resources)
			}
		}
	}
}

// mirror brings the mirrors in line with the served resources: it starts
// one for each new resource (one version of each group and resource, the
// one discovery lists first) and stops those of resources gone. It
// returns the new mirrors' synced channels.
func (c *Collector) mirror(ctx context.Context, wg *sync.WaitGroup, resources []apiclient.Resource) []<-chan struct{} {
	byKind := map[kindKey]*apiclient.Resource{}
	chosen := map[string]*apiclient.Resource{} // by resource.group
	var order []string
	for i := range resources {
		r := &resources[i]
		gr := r.Resource + "." + r.Group
		if chosen[gr] == nil {
			chosen[gr] = r
			order = append(order, gr)
		}
		// Every version's owner references resolve to the mirrored one.
		byKind[kindKey{r.APIVersion(), r.Kind}] = chosen[gr]
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byKind = byKind
	var synced []<-chan struct{}
	for gr, m := range c.mirrors {
		if r := chosen[gr]; r == nil || r.APIVersion() != m.res.APIVersion() || !r.Can("list", "watch", "delete") {
			m.stop()
			delete(c.mirrors, gr)
		}
	}
	for _, gr := range order {
		r := chosen[gr]
		if c.mirrors[gr] != nil || !r.Can("list", "watch", "delete") {
			continue
		}
		mctx, stop := context.WithCancel(ctx)
		rf := c.c.NewReflector(r.Path(""), c.observe(r), c.graph.knownOf(r))
		c.mirrors[gr] = &mirror{res: r, rf: rf, stop: stop}
		synced = append(synced, rf.Synced())
		wg.Add(1)
		go func() {
			defer wg.Done()
			rf.Run(mctx)
		}()
		if c.synced {
			// Objects whose owners are of this kind were taken to have
			// them while it was not served: look at them again once it
			// is mirrored.
			wg.Add(1)
			go func() {
				defer wg.Done()
				select {
				case <-rf.Synced():
					for _, n := range c.graph.all() {
						c.check(n)
					}
				case <-mctx.Done():
				}
			}()
		}
	}
	return synced
}

// mirror is the list-and-watch of one resource.
type mirror struct {
	res  *apiclient.Resource
	rf   *apiclient.Reflector
	stop context.CancelFunc
}

// refresh brings the graph up to date with consistent lists of every
// resource, so that an owner's dependents created just before its
// deletion are known before the owner is let go.
func (c *Collector) refresh(ctx context.Context) error {
	c.mu.RLock()
	rfs := make([]*apiclient.Reflector, 0, len(c.mirrors))
	for _, m := range c.mirrors {
		rfs = append(rfs, m.rf)
	}
	c.mu.RUnlock()
	for _, rf := range rfs {
		if err := rf.Refresh(ctx); err != nil {
			if status.IsNotFound(err) {
				continue // a kind removed since: nothing of it depends on anything
			}
			return err
		}
	}
	return nil
}

// Mirrors reports whether the collector mirrors (lists and watches) the
// resource of a group, for tests and diagnostics.
func (c *Collector) Mirrors(group, resource string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.mirrors[resource+"."+group] != nil
}

// Pending is the number of objects waiting to be processed, for tests
// and benchmarks that wait for the collector to settle.
func (c *Collector) Pending() int { return c.queue.Len() }

func (c *Collector) isSynced() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.synced
}

func (c *Collector) resource(apiVersion, kind string) *apiclient.Resource {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.byKind[kindKey{apiVersion, kind}]
}

// observe returns the handler of one resource's changes: it keeps the
// graph and queues what a change may have made collectable.
func (c *Collector) observe(res *apiclient.Resource) apiclient.Handler {
	return func(typ string, obj *apiclient.Object) {
		if typ == "DELETED" {
			n := c.graph.remove(uidOf(obj.Metadata.UID))
			if n == nil || !c.isSynced() {
				return
			}
			for _, d := range c.graph.dependentsOf(n.uid) {
				c.enqueue(d)
			}
			c.queueWaitingOwners(n)
			return
		}
		n := newNode(res, obj)
		old := c.graph.put(n, obj.Metadata.UID)
		c.reportInvalidNamespaces(n, old)
		if !c.isSynced() {
			return
		}
		c.check(n)
		if old != nil {
			c.queueWaitingOwners(old)
		}
		c.queueWaitingOwners(n)
	}
}

// check queues n if it may need work: it is being deleted with a policy
// the collector carries out, or it has an owner that is not known to
// exist or is deleting its dependents.
func (c *Collector) check(n *node) {
	if n.deleting && (n.orphan || n.foreground) {
		c.enqueue(n)
		return
	}
	if n.deleting {
		return
	}
	for _, r := range n.ownerRefs() {
		o := c.graph.get(uidOf(r.UID))
		if o == nil || !c.names(o, r, n) || o.waitingForDependents() {
			c.enqueue(n)
			return
		}
	}
}

// names reports whether owner node o is the object ref of dependent n
// names: same kind and name, and for a namespaced owner, n's namespace.
func (c *Collector) names(o *node, ref meta.OwnerReference, n *node) bool {
	res := c.resource(ref.APIVersion, ref.Kind)
	if res == nil || o.res != res || o.name != ref.Name {
		return false
	}
	if res.Namespaced {
		return n.namespace != "" && o.namespace == n.namespace
	}
	return true
}

// queueWaitingOwners queues the owners of n that wait for their
// dependents: a change to n may unblock them.
func (c *Collector) queueWaitingOwners(n *node) {
	for _, r := range n.ownerRefs() {
		if o := c.graph.get(uidOf(r.UID)); o != nil && o.waitingForDependents() {
			c.enqueue(o)
		}
	}
}

// enqueue queues n for processing, by its uid's text (see graph.text): a
// node whose text is gone is gone from the graph, and has nothing to do.
func (c *Collector) enqueue(n *node) {
	if text := c.graph.text(n.uid); text != "" {
		c.queue.Add(text)
	}
}

// work processes queued objects until the queue closes; a failure is
// retried after a pause.
func (c *Collector) work(ctx context.Context) {
	for {
		uid, ok := c.queue.Get()
		if !ok {
			return
		}
		err := c.process(ctx, uid)
		c.queue.Done(uid)
		if err != nil && ctx.Err() == nil {
			if !errors.Is(err, errRetry) {
				c.log.Info("garbage collection will retry", "uid", uid, "err", err)
			}
			c.queue.AddAfter(uid, 200*time.Millisecond)
		}
	}
}
