package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// update serves PUT on an object or its status.
func (h *handler) update(req *request) {
	rendering, err := h.negotiateWrite(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	in, err := h.readWrite(req, "UpdateOptions")
	if err != nil {
		h.fail(req, err)
		return
	}
	// The body's resourceVersion is the precondition on every attempt and
	// its managedFields the entries the request sent; preparing the write
	// overwrites both, so restore them before each attempt.
	m := in.obj.GetObjectMeta()
	bodyRV, bodyManaged := m.ResourceVersion, m.ManagedFields
	w := &write{h: h, req: req, manager: in.manager, dryRun: in.dry,
		createMissing: h.r.kind.AllowCreateOnUpdate && req.subresource == "",
		build: func(*storage.KeyValue, meta.Object) (meta.Object, error) {
			m.ResourceVersion, m.ManagedFields = bodyRV, bodyManaged
			return in.obj, nil
		}}
	w.track = h.updateTracker(w)
	out, err := w.run(req.r.Context())
	if err != nil {
		h.fail(req, err)
		return
	}
	code := http.StatusOK
	if out.created {
		code = http.StatusCreated
	}
	h.writeWritten(req, rendering, code, out.obj, out.kv)
}

func (req *request) checkName(obj meta.Object) error {
	if name := obj.GetObjectMeta().Name; name != req.name {
		return status.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, req.name))
	}
	return nil
}

// prepareForUpdate carries over what the server owns from the stored
// object old and splits spec from status: a write to the main resource
// keeps the stored status (and, later, what the kind's PrepareForUpdate
// keeps: see [write.prepareKind]), a write to /status keeps everything
// else (or, for a kind with PrepareForStatusUpdate, what that hook
// keeps), and one to /finalize takes only what the kind's Finalize
// copies. PrepareForUpdate sees the object with the stored status, as
// kube-apiserver's strategies do, so that it may derive status from the
// new spec (a CustomResourceDefinition's new storage version joins its
// storedVersions).
func (w *write) prepareForUpdate(obj, old meta.Object) (meta.Object, error) {
	r := w.h.r
	sub := w.req.subresource
	switch {
	case sub == "status" && r.kind.PrepareForStatusUpdate != nil:
		// The kind keeps the request's metadata on /status, as the
		// status strategies of kube's built-in kinds do: only what its
		// hook carries over comes from the stored object.
		var err error
		if obj, err = r.prepareHook(obj, old, r.kind.PrepareForStatusUpdate); err != nil {
			return nil, err
		}
	case sub == "status" || sub == "finalize":
		// A status (finalize) write changes status (what Finalize
		// copies) only: start from the stored object and take that, and
		// the managedFields the write carries.
		base, err := r.decodeCopy(old)
		if err != nil {
			return nil, err
		}
		managed := obj.GetObjectMeta().ManagedFields
		if sub == "status" {
			r.copyStatus(base, obj)
		} else if base, err = r.finalize(base, obj); err != nil {
			return nil, err
		}
		base.GetObjectMeta().ManagedFields = managed
		obj = base
	case sub == "" && r.kind.Subresources.Status:
		r.copyStatus(obj, old)
	}
	m, om := obj.GetObjectMeta(), old.GetObjectMeta()
	if m.UID != "" && m.UID != om.UID {
		return nil, status.Conflict(r.gr, w.req.name, fmt.Errorf("Precondition failed: UID in precondition: %s, UID in object meta: %s", m.UID, om.UID))
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

// finalize runs the kind's Finalize on dst and src in the storage version
// and returns dst as it left it.
func (r *resource) finalize(dst, src meta.Object) (meta.Object, error) {
	src, err := r.hookObject(src)
	if err != nil {
		return nil, err
	}
	return r.runHook(dst, func(dst meta.Object) { r.kind.Finalize(dst, src) })
}

// prepareHook runs hook, the kind's PrepareForUpdate or
// PrepareForStatusUpdate, on obj and old in the storage version and
// returns obj as it left it.
func (r *resource) prepareHook(obj, old meta.Object, hook func(obj, old meta.Object)) (meta.Object, error) {
	if r.isStorage() {
		hook(obj, old)
		return obj, nil
	}
	old, err := r.hookObject(old)
	if err != nil {
		return nil, err
	}
	return r.runHook(obj, func(obj meta.Object) { hook(obj, old) })
}

// decodeCopy returns a deep copy of a stored object. A JSON copy is
// encoded into a buffer kept for the next copy: decoding JSON copies what
// it keeps, and the encoding, the size of a stored value, would otherwise
// be garbage of that size on every status write, whose holes scatter the
// stored values kept alongside it over more of the heap's pages.
func (r *resource) decodeCopy(obj meta.Object) (meta.Object, error) {
	rv := obj.GetObjectMeta().ResourceVersion
	n, _ := strconv.ParseInt(rv, 10, 64)
	if r.storageCodec != nil {
		// Other decoders may keep slices of their input.
		b, err := r.encode(obj)
		if err != nil {
			return nil, status.InternalError(err)
		}
		return r.decode(&storage.KeyValue{Value: b, ModRevision: n})
	}
	buf, _ := r.copyBuffers.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	defer func() {
		buf.Reset()
		r.copyBuffers.Put(buf)
	}()
	err := r.inStoredForm(obj, func(obj meta.Object) error { return json.NewEncoder(buf).Encode(obj) })
	if err != nil {
		return nil, status.InternalError(err)
	}
	return r.decode(&storage.KeyValue{Value: bytes.TrimSuffix(buf.Bytes(), []byte("\n")), ModRevision: n})
}

// replace stores obj over the stored value cur with compare-and-swap and
// returns the value stored: cur's for an update that changes nothing
// (which keeps its resourceVersion), nil when the object was deleted
// because it lost the last finalizer while being deleted. done is false
// when a concurrent write won the race and the caller should retry. pre
// is obj's encoding without managedFields, or nil (see storedValue).
func (r *resource) replace(ctx context.Context, cur *storage.KeyValue, obj meta.Object, pre []byte) (kv *storage.KeyValue, done bool, err error) {
	return r.replaceOrRemove(ctx, cur, obj, pre, true)
}

// replaceOrRemove is replace; with remove false, an object being deleted
// that has no finalizers left is stored rather than removed (the first
// delete of a kind with DeletionHooks only marks it).
func (r *resource) replaceOrRemove(ctx context.Context, cur *storage.KeyValue, obj meta.Object, pre []byte, remove bool) (kv *storage.KeyValue, done bool, err error) {
	f, err := r.storedParts(obj, pre, spliceHints{})
	if err != nil {
		return nil, false, status.InternalError(err)
	}
	if sameParts(f, cur) {
		return cur, true, nil
	}
	m := obj.GetObjectMeta()
	key := r.key(m.Namespace, m.Name)
	if remove && m.DeletionTimestamp != nil && len(m.Finalizers) == 0 && !r.pending(obj) {
		resp, err := r.store.OptimisticDelete(ctx, key, cur.ModRevision, storage.DeleteOptions{})
		if err != nil {
			return nil, false, storageError(err)
		}
		if resp.Succeeded {
			m.ResourceVersion = strconv.FormatInt(resp.Revision, 10)
		}
		return nil, resp.Succeeded, nil
	}
	r.hintTerms(key, f.value, obj)
	// f.value is this write's own encoding: the store keeps it, not a copy.
	resp, err := r.store.OptimisticPut(ctx, key, f.value, cur.ModRevision, storage.PutOptions{ValueOwned: true, Shared: f.shared})
	if err != nil {
		return nil, false, storageError(err)
	}
	if !resp.Succeeded {
		return nil, false, nil
	}
	m.ResourceVersion = strconv.FormatInt(resp.KV.ModRevision, 10)
	return &storage.KeyValue{Key: key, Value: f.value, Shared: f.shared, ModRevision: resp.KV.ModRevision}, true, nil
}
