package pipeline

import (
	"fmt"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// prepareForUpdate carries over what the server owns from the stored
// object old and splits spec from status: a write to the main resource
// keeps the stored status (and, later, what the kind's PrepareForUpdate
// keeps: see [Write.prepareKind]), a write to /status keeps everything
// else (or, for a kind with PrepareForStatusUpdate, what that hook
// keeps), and one to /finalize takes only what the kind's Finalize
// copies. PrepareForUpdate sees the object with the stored status, as
// kube-apiserver's strategies do, so that it may derive status from the
// new spec (a CustomResourceDefinition's new storage version joins its
// storedVersions).
func (w *Write) prepareForUpdate(obj, old meta.Object) (meta.Object, error) {
	r := w.Resource
	sub := w.Subresource
	switch {
	case sub == "status" && r.Kind.PrepareForStatusUpdate != nil:
		// The kind keeps the request's metadata on /status, as the
		// status strategies of kube's built-in kinds do: only what its
		// hook carries over comes from the stored object.
		var err error
		if obj, err = prepareHook(r, obj, old, r.Kind.PrepareForStatusUpdate); err != nil {
			return nil, err
		}
	case sub == "status" || sub == "finalize":
		// A status (finalize) write changes status (what Finalize
		// copies) only: start from the stored object and take that, and
		// the managedFields the write carries.
		base, err := r.DecodeCopy(old)
		if err != nil {
			return nil, err
		}
		managed := obj.GetObjectMeta().ManagedFields
		if sub == "status" {
			r.CopyStatus(base, obj)
		} else if base, err = finalizeObject(r, base, obj); err != nil {
			return nil, err
		}
		base.GetObjectMeta().ManagedFields = managed
		obj = base
	case sub == "" && r.Kind.Subresources.Status:
		r.CopyStatus(obj, old)
	}
	m, om := obj.GetObjectMeta(), old.GetObjectMeta()
	if m.UID != "" && m.UID != om.UID {
		return nil, status.Conflict(r.GroupResource, w.Name, fmt.Errorf("Precondition failed: UID in precondition: %s, UID in object meta: %s", m.UID, om.UID))
	}
	m.UID = om.UID
	m.Name, m.Namespace = om.Name, om.Namespace
	m.CreationTimestamp = om.CreationTimestamp
	m.DeletionTimestamp = om.DeletionTimestamp
	m.DeletionGracePeriodSeconds = om.DeletionGracePeriodSeconds
	m.SelfLink = ""
	m.ResourceVersion = om.ResourceVersion
	return obj, nil
}

// finalizeObject runs the kind's Finalize on dst and src in the storage version
// and returns dst as it left it.
func finalizeObject(r *registry.Resource, dst, src meta.Object) (meta.Object, error) {
	src, err := r.HookObject(src)
	if err != nil {
		return nil, err
	}
	return r.RunHook(dst, func(dst meta.Object) { r.Kind.Finalize(dst, src) })
}

// prepareHook runs hook, the kind's PrepareForUpdate or
// PrepareForStatusUpdate, on obj and old in the storage version and
// returns obj as it left it.
func prepareHook(r *registry.Resource, obj, old meta.Object, hook func(obj, old meta.Object)) (meta.Object, error) {
	if r.IsStorage() {
		hook(obj, old)
		return obj, nil
	}
	old, err := r.HookObject(old)
	if err != nil {
		return nil, err
	}
	return r.RunHook(obj, func(obj meta.Object) { hook(obj, old) })
}
