package gc

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// errRetry asks for a quiet retry: the graph is behind the server.
var errRetry = errors.New("retry once the graph catches up")

// process does what the object of uid needs now.
func (c *Collector) process(ctx context.Context, uid string) error {
	n := c.graph.get(uidOf(uid))
	switch {
	case n == nil:
		return nil
	case n.waitingForDependents():
		return c.deleteDependents(ctx, n)
	case n.deleting && n.orphan:
		return c.orphanDependents(ctx, n)
	case !n.deleting && len(n.ownerRefs()) > 0:
		return c.attemptToDelete(ctx, n)
	}
	return nil
}

// ownerState is what became of an owner.
type ownerState int

const (
	solid    ownerState = iota // exists
	dangling                   // gone, or never could own the dependent
	waiting                    // being deleted in the foreground
	// invalid: a namespaced owner of a cluster-scoped dependent, which
	// cannot be looked for anywhere. Kube's collector then leaves the
	// dependent as it is, whatever its other owners, and so does this
	// one.
	invalid
)

// owner finds out what became of the owner that ref names for dependent
// n: from the graph when it knows the owner, else from the server.
func (c *Collector) owner(ctx context.Context, n *node, ref meta.OwnerReference) (ownerState, error) {
	res := c.resource(ref.APIVersion, ref.Kind)
	if res == nil {
		// A kind this server does not serve: its objects cannot be
		// checked, so the reference is kept.
		return solid, nil
	}
	ns := ""
	if res.Namespaced {
		if n.namespace == "" {
			return invalid, nil
		}
		ns = n.namespace
	}
	if o := c.graph.get(uidOf(ref.UID)); o != nil && c.names(o, ref, n) {
		if o.waitingForDependents() {
			return waiting, nil
		}
		return solid, nil
	}
	if c.graph.isAbsent(uidOf(ref.UID)) {
		return dangling, nil
	}
	var obj apiclient.Object
	switch err := c.c.Get(ctx, res.ObjectPath(ns, ref.Name), &obj); {
	case status.IsNotFound(err):
		return dangling, nil
	case err != nil:
		return solid, err
	}
	m := obj.Metadata
	switch {
	case m.UID != ref.UID:
		return dangling, nil
	case m.DeletionTimestamp != nil && slices.Contains(m.Finalizers, meta.FinalizerDeleteDependents):
		return waiting, nil
	}
	return solid, nil
}

// attemptToDelete deletes n when none of its owners remains. When some
// remain, references to owners that are gone are removed and those to
// owners deleting in the foreground stop blocking them.
func (c *Collector) attemptToDelete(ctx context.Context, n *node) error {
	n, err := c.latest(ctx, n)
	if n == nil || err != nil || len(n.ownerRefs()) == 0 {
		return err
	}
	var solids, danglings, waitings []meta.OwnerReference
	for _, ref := range n.ownerRefs() {
		st, err := c.owner(ctx, n, ref)
		if err != nil {
			return err
		}
		switch st {
		case solid:
			solids = append(solids, ref)
		case dangling:
			danglings = append(danglings, ref)
		case waiting:
			waitings = append(waitings, ref)
		case invalid:
			return nil // left alone, not retried: it will not resolve
		}
	}
	if len(solids) > 0 {
		if len(danglings) == 0 && !anyBlocking(waitings) {
			return nil
		}
		keep := slices.Clone(solids)
		no := false
		for _, w := range waitings {
			w.BlockOwnerDeletion = &no
			keep = append(keep, w)
		}
		return c.setOwners(ctx, n, keep)
	}
	policy := meta.DeletePropagationBackground
	switch {
	case len(waitings) > 0 && c.graph.hasDependents(n.uid):
		policy = meta.DeletePropagationForeground
	case n.orphan:
		policy = meta.DeletePropagationOrphan
	case n.foreground:
		policy = meta.DeletePropagationForeground
	}
	return c.delete(ctx, n, policy)
}

func anyBlocking(refs []meta.OwnerReference) bool {
	for _, r := range refs {
		if r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion {
			return true
		}
	}
	return false
}

// latest reads n from the server, so that a decision to delete it is
// made on its current owners, not on the graph's view, which may lag;
// nil when it is gone or is another object now.
func (c *Collector) latest(ctx context.Context, n *node) (*node, error) {
	var obj apiclient.Object
	switch err := c.c.Get(ctx, n.path(), &obj); {
	case status.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	case uidOf(obj.Metadata.UID) != n.uid || obj.Metadata.DeletionTimestamp != nil:
		return nil, nil
	}
	return newNode(n.res, &obj), nil
}

// delete deletes n with the given policy, if it is still the object, at
// the resourceVersion, the decision was made on.
func (c *Collector) delete(ctx context.Context, n *node, policy meta.DeletionPropagation) error {
	uid, rv := c.graph.text(n.uid), strconv.FormatInt(n.rv, 10)
	if uid == "" {
		return nil // gone from the graph: deleted meanwhile
	}
	c.log.Debug("deleting", "path", n.path(), "policy", policy, "owners", n.ownerRefs())
	err := c.c.Delete(ctx, n.path(), meta.DeleteOptions{PropagationPolicy: &policy, Preconditions: &meta.Preconditions{UID: &uid, ResourceVersion: &rv}})
	switch {
	case status.IsNotFound(err):
		return nil
	case status.IsConflict(err):
		return errRetry
	}
	return err
}

// deleteDependents carries out a foreground deletion: every dependent of
// n is deleted, and n loses its foregroundDeletion finalizer once no
// dependent blocks it.
func (c *Collector) deleteDependents(ctx context.Context, n *node) error {
	blocked := false
	for _, d := range c.graph.dependentsOf(n.uid) {
		if blocks(d, n) {
			blocked = true
		}
		if !d.deleting && d.uid != n.uid {
			c.enqueue(d)
		}
	}
	if blocked {
		return nil
	}
	if err := c.refresh(ctx); err != nil {
		return err
	}
	for _, d := range c.graph.dependentsOf(n.uid) {
		if blocks(d, n) {
			c.enqueue(n) // found by the refresh: look again
			return nil
		}
	}
	return c.removeFinalizer(ctx, n, meta.FinalizerDeleteDependents)
}

// blocks reports whether dependent d holds back owner n's foreground
// deletion: its reference has blockOwnerDeletion, it is not n itself,
// and it does not wait for n in turn (in a cycle one has to go first).
func blocks(d, n *node) bool {
	if d.uid == n.uid || !d.blocks(n.uid) {
		return false
	}
	return !(d.waitingForDependents() && n.blocks(d.uid))
}

// orphanDependents carries out an orphaning deletion: the references to
// n are removed from its dependents, then n loses its orphan finalizer.
func (c *Collector) orphanDependents(ctx context.Context, n *node) error {
	c.log.Debug("orphaning", "path", n.path(), "deps", len(c.graph.dependentsOf(n.uid)))
	if err := c.refresh(ctx); err != nil {
		return err
	}
	for _, d := range c.graph.dependentsOf(n.uid) {
		keep := make([]meta.OwnerReference, 0, len(d.ownerRefs()))
		for _, r := range d.ownerRefs() {
			if uidOf(r.UID) != n.uid {
				keep = append(keep, r)
			}
		}
		if err := c.setOwners(ctx, d, keep); err != nil {
			return err
		}
	}
	return c.removeFinalizer(ctx, n, meta.FinalizerOrphanDependents)
}

// setOwners replaces n's owner references, if n has not changed since the
// graph saw it.
func (c *Collector) setOwners(ctx context.Context, n *node, refs []meta.OwnerReference) error {
	var value any = refs
	if len(refs) == 0 {
		value = nil
	}
	return c.patchMeta(ctx, n, map[string]any{"ownerReferences": value})
}

// removeFinalizer removes one finalizer from n.
func (c *Collector) removeFinalizer(ctx context.Context, n *node, f string) error {
	var obj apiclient.Object
	if err := c.c.Get(ctx, n.path(), &obj); err != nil {
		if status.IsNotFound(err) {
			return nil
		}
		return err
	}
	if uidOf(obj.Metadata.UID) != n.uid {
		return nil
	}
	var keep []string
	for _, x := range obj.Metadata.Finalizers {
		if x != f {
			keep = append(keep, x)
		}
	}
	if len(keep) == len(obj.Metadata.Finalizers) {
		return nil
	}
	var value any = keep
	if len(keep) == 0 {
		value = nil
	}
	n2 := *n
	n2.rv = apiclient.ResourceVersionOf(obj.Metadata.ResourceVersion)
	return c.patchMeta(ctx, &n2, map[string]any{"finalizers": value})
}

// patchMeta merge-patches n's metadata with n's resourceVersion as the
// precondition; a conflict is retried once the graph has the newer
// object.
func (c *Collector) patchMeta(ctx context.Context, n *node, fields map[string]any) error {
	fields["resourceVersion"] = strconv.FormatInt(n.rv, 10)
	err := c.c.MergePatch(ctx, n.path(), map[string]any{"metadata": fields})
	switch {
	case status.IsNotFound(err):
		return nil
	case status.IsConflict(err):
		return errRetry
	}
	return err
}
