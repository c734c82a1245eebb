package pipeline

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// Delete deletes one object. An object with finalizers, or one the
// delete's propagation policy gives the orphan or foregroundDeletion
// finalizer, is not removed: it is marked with a deletionTimestamp and
// returned with deleted false, and goes when its last finalizer is
// removed. A kind with DeletionHooks is always marked first.
func (w *Write) Delete(ctx context.Context, namespace, name string, opts meta.DeleteOptions) (obj meta.Object, deleted bool, err error) {
	obj, deleted, err = w.deleteStored(ctx, namespace, name, opts)
	if err == nil {
		obj, err = w.Resource.InVersion(obj)
	}
	return obj, deleted, err
}

// deleteStored is delete in the storage version.
func (w *Write) deleteStored(ctx context.Context, namespace, name string, opts meta.DeleteOptions) (obj meta.Object, deleted bool, err error) {
	r := w.sr()
	key := r.Key(namespace, name)
	for {
		cur, err := r.Store.Get(ctx, key, storage.GetOptions{})
		if err != nil {
			return nil, false, registry.StorageError(err)
		}
		if cur.KV == nil {
			return nil, false, status.NotFound(r.GroupResource, name)
		}
		if r.Normalized {
			// Read as the cache reads it: the object a delete answers
			// with, or marks and stores, is the one a get returns.
			cur.KV = r.Normalize(cur.KV)
		}
		obj, err := r.Decode(cur.KV)
		if err != nil {
			return nil, false, status.InternalError(err)
		}
		if err := checkPreconditions(r, obj, opts.Preconditions); err != nil {
			return nil, false, err
		}
		if err := w.admitDelete(ctx, obj); err != nil {
			return nil, false, err
		}
		m := obj.GetObjectMeta()
		marked := m.DeletionTimestamp != nil
		if marked && r.Pending(obj) {
			if msg := r.Kind.Deletion.PendingMessage; msg != "" {
				return nil, false, status.Conflict(r.GroupResource, name, errors.New(msg))
			}
			return obj, false, nil // changes nothing, as kube's namespace store
		}
		changed := setPropagationFinalizers(r, m, opts)
		twoPhase := r.Kind.Deletion != nil && !marked
		if len(m.Finalizers) > 0 || twoPhase {
			if twoPhase {
				markFirstPhase(m)
				if r.Kind.Deletion.Mark != nil {
					r.Kind.Deletion.Mark(obj)
				}
			} else {
				markDeleting(m)
			}
			if (marked && !changed) || w.DryRun {
				return obj, false, nil
			}
			// replace removes an object left with no finalizers, but
			// for the first delete of a two-phase kind, which only
			// marks it, as kube-apiserver's Namespace store does.
			if _, done, err := r.ReplaceOrRemove(ctx, cur.KV, obj, nil, !twoPhase); err != nil || done {
				return obj, err == nil && !twoPhase && len(m.Finalizers) == 0 && !r.Pending(obj), err
			}
			continue
		}
		if w.DryRun {
			return obj, true, nil
		}
		resp, err := r.Store.OptimisticDelete(ctx, key, cur.KV.ModRevision, storage.DeleteOptions{})
		if err != nil {
			return nil, false, registry.StorageError(err)
		}
		if resp.Succeeded {
			// The object as deleted, at the revision of its deletion.
			m.ResourceVersion = strconv.FormatInt(resp.Revision, 10)
			return obj, true, nil
		}
	}
}

// setPropagationFinalizers gives the object the finalizer its deletion
// policy asks for (orphan, foregroundDeletion or neither) and reports
// whether its finalizers changed. The policy is the request's
// propagationPolicy, else its orphanDependents, else the one a finalizer
// of an earlier delete recorded, else the kind's default.
func setPropagationFinalizers(r *registry.Resource, m *meta.ObjectMeta, opts meta.DeleteOptions) bool {
	orphan := hasFinalizer(m, meta.FinalizerOrphanDependents)
	foreground := hasFinalizer(m, meta.FinalizerDeleteDependents)
	switch {
	case opts.PropagationPolicy != nil:
		orphan = *opts.PropagationPolicy == meta.DeletePropagationOrphan
		foreground = *opts.PropagationPolicy == meta.DeletePropagationForeground
	case opts.OrphanDependents != nil:
		orphan, foreground = *opts.OrphanDependents, false
	case !orphan && !foreground:
		orphan = r.Kind.DeletePropagation == meta.DeletePropagationOrphan
		foreground = r.Kind.DeletePropagation == meta.DeletePropagationForeground
	}
	kept := make([]string, 0, len(m.Finalizers)+1)
	for _, f := range m.Finalizers {
		if f != meta.FinalizerOrphanDependents && f != meta.FinalizerDeleteDependents {
			kept = append(kept, f)
		}
	}
	if orphan {
		kept = append(kept, meta.FinalizerOrphanDependents)
	}
	if foreground {
		kept = append(kept, meta.FinalizerDeleteDependents)
	}
	if slices.Equal(kept, m.Finalizers) {
		return false
	}
	if len(kept) == 0 {
		kept = nil
	}
	m.Finalizers = kept
	return true
}

func hasFinalizer(m *meta.ObjectMeta, f string) bool { return slices.Contains(m.Finalizers, f) }

// markDeleting marks an object that has finalizers as being deleted, once.
// The first marking also bumps its generation, as kube-apiserver does:
// controllers that only watch generation changes (controller-runtime's
// GenerationChangedPredicate) learn of the deletion that way.
func markDeleting(m *meta.ObjectMeta) {
	if m.DeletionTimestamp != nil {
		return
	}
	if m.Generation > 0 {
		m.Generation++
	}
	now, zero := meta.Now(), int64(0)
	m.DeletionTimestamp, m.DeletionGracePeriodSeconds = &now, &zero
}

// markFirstPhase marks an object of a kind with DeletionHooks as being
// deleted, as kube-apiserver's Namespace and CustomResourceDefinition
// stores mark them: a deletionTimestamp only, without the grace period
// and generation bump of other objects kept by finalizers.
func markFirstPhase(m *meta.ObjectMeta) {
	now := meta.Now()
	m.DeletionTimestamp = &now
}

func checkPreconditions(r *registry.Resource, obj meta.Object, p *meta.Preconditions) error {
	if p == nil {
		return nil
	}
	m := obj.GetObjectMeta()
	if p.UID != nil && *p.UID != m.UID {
		return status.Conflict(r.GroupResource, m.Name, fmt.Errorf("Precondition failed: UID in precondition: %s, UID in object meta: %s", *p.UID, m.UID))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != m.ResourceVersion {
		return status.Conflict(r.GroupResource, m.Name, fmt.Errorf("Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s", *p.ResourceVersion, m.ResourceVersion))
	}
	return nil
}
