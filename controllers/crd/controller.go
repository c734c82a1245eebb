// Package crd serves the kinds CustomResourceDefinitions define while the
// server runs, as kube-apiserver's apiextensions controllers do: it
// accepts a definition's names unless another definition of the group
// holds them (NamesAccepted, with kube's reasons), installs its kind
// (apiserver.Server.Install) and marks it Established, replaces the kind
// when the definition changes, and on deletion deletes every object of
// the kind (the customresourcecleanup.apiextensions.k8s.io finalizer;
// objects with finalizers of their own are waited for) before the kind
// is uninstalled.
//
// Every server serving definitions runs its own controller: each serves
// the kinds of the definitions it sees in the shared store, so a
// definition created through one server is served by all of them. The
// status they write is the same from any of them.
package crd

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/controllers/internal/workqueue"
	"github.com/kapi-dev/kapi/kinds/apiextensionsv1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Options configures a Controller.
type Options struct {
	// Logger receives the retries; default: discard.
	Logger *slog.Logger
	// CleanupInterval is how often a deleted definition's remaining
	// objects are looked at again; default one second.
	CleanupInterval time.Duration
}

// Serve registers CustomResourceDefinitions on srv (see
// apiextensionsv1.Register) and returns the controller that serves
// their kinds; run it with Run once the server is built.
func Serve(srv *apiserver.Server, opts Options) *Controller {
	apiextensionsv1.Register(srv)
	return New(srv, opts)
}

// Controller serves the kinds of a server's definitions.
type Controller struct {
	srv   *apiserver.Server
	c     *apiclient.Client
	opts  Options
	log   *slog.Logger
	queue *workqueue.Queue

	mu        sync.Mutex
	installed map[string]*installed // by definition name
}

// installed is a kind this controller installed.
type installed struct {
	group, resource string
	generation      int64
	kind            string
	// terminating refuses new objects while the definition is deleted.
	terminating atomic.Bool
}

// New returns the controller of srv's definitions; srv must serve them
// (see Serve).
func New(srv *apiserver.Server, opts Options) *Controller {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.CleanupInterval <= 0 {
		opts.CleanupInterval = time.Second
	}
	return &Controller{srv: srv, c: apiclient.New(srv), opts: opts, log: opts.Logger,
		queue: workqueue.New(), installed: map[string]*installed{}}
}

const definitions = "/apis/" + apiextensionsv1.Group + "/" + apiextensionsv1.Version + "/" + apiextensionsv1.Resource

// Run serves the definitions' kinds until ctx is done. The kinds stay
// served after it returns.
func (c *Controller) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rf := c.c.NewReflector(definitions, func(_ string, obj *apiclient.Object) { c.queue.Add(obj.Metadata.Name) }, nil)
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		rf.Run(ctx)
	}()
	go func() {
		<-ctx.Done()
		c.queue.Close()
	}()
	// One worker: names are arbitrated between definitions one at a
	// time, as kube's naming controller does.
	for {
		name, ok := c.queue.Get()
		if !ok {
			return nil
		}
		again, err := c.sync(ctx, name)
		if err != nil && ctx.Err() == nil {
			c.log.Error("serving custom resource definition", "name", name, "err", err)
			again = time.Second
		}
		c.queue.Done(name)
		if again > 0 && ctx.Err() == nil {
			c.queue.AddAfter(name, again)
		}
	}
}

// sync brings one definition's kind and status up to date; it returns
// how soon to look again, or 0.
func (c *Controller) sync(ctx context.Context, name string) (time.Duration, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	err := c.c.Get(ctx, definitions+"/"+name, &crd)
	if status.IsNotFound(err) {
		c.uninstall(name)
		return 0, c.requeueGroup(ctx, name, "")
	}
	if err != nil {
		return 0, err
	}
	if crd.DeletionTimestamp != nil {
		return c.finalize(ctx, &crd)
	}
	if done, err := c.approve(ctx, &crd); done || err != nil {
		return 0, err
	}
	if done, err := c.acceptNames(ctx, &crd); done || err != nil {
		return 0, err
	}
	if cond := crd.Condition(apiextensionsv1.NamesAccepted); cond == nil || cond.Status != apiextensionsv1.ConditionTrue {
		return 0, nil
	}
	// A new storage version joined status.storedVersions with the write
	// that made it the storage version; the controller leaves the list
	// alone, as kube's do: a client that migrated the objects edits it.
	if err := c.install(&crd); err != nil {
		return 0, err
	}
	return 0, c.establish(ctx, &crd)
}

// install serves the definition's kind, replacing the one installed
// for an older generation.
func (c *Controller) install(crd *apiextensionsv1.CustomResourceDefinition) error {
	c.mu.Lock()
	have := c.installed[crd.Name]
	c.mu.Unlock()
	if have != nil && have.generation == crd.Generation && have.kind == crd.Spec.Names.Kind {
		have.terminating.Store(crd.IsTerminating())
		return nil
	}
	if !crd.Served() {
		c.uninstall(crd.Name) // as kube, a definition serving no version is taken but serves nothing
		return nil
	}
	k, errs := apiextensionsv1.KindFor(crd)
	if len(errs) > 0 {
		return errs
	}
	in := &installed{group: k.Group, resource: k.Resource, generation: crd.Generation, kind: k.Kind}
	in.terminating.Store(crd.IsTerminating())
	refuse := apiextensionsv1.RefuseCreates(meta.GroupResource{Group: k.Group, Resource: k.Resource})
	k.Admit = func(ctx context.Context, req *apiserver.AdmissionRequest) error {
		if in.terminating.Load() {
			return refuse(ctx, req)
		}
		return nil
	}
	if err := c.srv.Install(k); err != nil {
		return err
	}
	c.mu.Lock()
	c.installed[crd.Name] = in
	c.mu.Unlock()
	return nil
}

func (c *Controller) uninstall(name string) {
	c.mu.Lock()
	in := c.installed[name]
	delete(c.installed, name)
	c.mu.Unlock()
	if in == nil {
		return
	}
	if err := c.srv.Uninstall(in.group, in.resource); err != nil {
		c.log.Error("uninstalling custom resource", "name", name, "err", err)
	}
}

// establish sets Established once the kind is served (False while the
// conversion webhook's caBundle trusts nothing, as kube says).
func (c *Controller) establish(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	if crd.IsEstablished() {
		return nil
	}
	cond := apiextensionsv1.EstablishedCondition(crd)
	if old := crd.Condition(apiextensionsv1.Established); old != nil && old.Status == cond.Status && old.Reason == cond.Reason {
		return nil
	}
	crd.SetCondition(cond, meta.Now())
	return c.updateStatus(ctx, crd)
}

// updateStatus writes a definition's status; a conflict or a definition
// gone is left to the next event.
func (c *Controller) updateStatus(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	// The answer is decoded into a copy: decoding into crd itself would
	// write into the backing arrays of its slices, which the kind served
	// from it shares with discovery's readers.
	out, err := copyDefinition(crd)
	if err != nil {
		return err
	}
	err = c.c.Update(ctx, definitions+"/"+crd.Name+"/status", out)
	if status.IsConflict(err) || status.IsNotFound(err) {
		return nil
	}
	if err == nil {
		*crd = *out
	}
	return err
}

// copyDefinition is a deep copy of crd.
func copyDefinition(crd *apiextensionsv1.CustomResourceDefinition) (*apiextensionsv1.CustomResourceDefinition, error) {
	b, err := json.Marshal(crd)
	if err != nil {
		return nil, err
	}
	out := &apiextensionsv1.CustomResourceDefinition{}
	return out, json.Unmarshal(b, out)
}

// finalize deletes the objects of a deleted definition, then stops
// serving its kind and lets the definition go by removing the cleanup
// finalizer; the kind is served (refusing new objects) until then.
func (c *Controller) finalize(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) (time.Duration, error) {
	if !slices.Contains(crd.Finalizers, apiextensionsv1.CleanupFinalizer) {
		return 0, nil
	}
	if err := c.install(crd); err != nil {
		return 0, err
	}
	c.mu.Lock()
	in := c.installed[crd.Name]
	c.mu.Unlock()
	if in == nil {
		// No version is served: there is no kind to delete objects
		// through (those written while one was served stay stored).
		return 0, c.dropCleanupFinalizer(ctx, crd)
	}
	in.terminating.Store(true)
	// Say the objects are being deleted before deleting them, as kube's
	// finalizer does; the write comes back as an event.
	if t := crd.Condition(apiextensionsv1.Terminating); t == nil || t.Reason != apiextensionsv1.DeletionInProgress {
		crd.SetCondition(apiextensionsv1.TerminatingCondition(apiextensionsv1.DeletionInProgress), meta.Now())
		return 0, c.updateStatus(ctx, crd)
	}
	path := "/apis/" + in.group + "/" + crd.StorageVersion() + "/" + in.resource
	err := c.c.Delete(ctx, path, meta.DeleteOptions{})
	if err != nil && !status.IsNotFound(err) {
		return 0, err
	}
	items, _, err := c.c.List(ctx, path, nil)
	if err != nil {
		return 0, err
	}
	if len(items) > 0 {
		return c.opts.CleanupInterval, nil
	}
	// Stop serving the kind before the definition goes, so that a client
	// that saw the definition deleted finds the kind gone too. Should a
	// write below fail, the next round installs the kind again.
	c.uninstall(crd.Name)
	return 0, c.release(ctx, crd)
}

// release says a deleted definition's objects are all gone, then removes
// its cleanup finalizer, which lets it go; a conflict or the definition
// gone is left to the next event.
func (c *Controller) release(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	crd.SetCondition(apiextensionsv1.TerminatingCondition(apiextensionsv1.DeletionCompleted), meta.Now())
	err := c.c.Update(ctx, definitions+"/"+crd.Name+"/status", crd)
	if err == nil {
		crd.Finalizers = slices.DeleteFunc(crd.Finalizers, func(f string) bool { return f == apiextensionsv1.CleanupFinalizer })
		err = c.c.Update(ctx, definitions+"/"+crd.Name, crd)
	}
	var se *status.Error
	if errors.As(err, &se) && (status.IsConflict(err) || status.IsNotFound(err)) {
		return nil
	}
	return err
}

// dropCleanupFinalizer lets a deleted definition go; a conflict or the
// definition gone is left to the next event.
func (c *Controller) dropCleanupFinalizer(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	crd.Finalizers = slices.DeleteFunc(crd.Finalizers, func(f string) bool { return f == apiextensionsv1.CleanupFinalizer })
	err := c.c.Update(ctx, definitions+"/"+crd.Name, crd)
	if status.IsConflict(err) || status.IsNotFound(err) {
		return nil
	}
	return err
}

// Installed reports whether this controller serves the kind of the
// named definition.
func (c *Controller) Installed(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.installed[name] != nil
}

var _ http.Handler = (*apiserver.Server)(nil)
