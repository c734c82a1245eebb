package apiserver

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// update serves PUT on an object or its status.
func (s *Server) update(req *request) {
	in, err := s.readWrite(req, "UpdateOptions")
	if err != nil {
		s.fail(req, err)
		return
	}
	obj, dry, manager := in.obj, in.dry, in.manager
	track := s.updateTracker(req, manager)
	// The body's resourceVersion is the precondition on every attempt and
	// its managedFields the entries the request sent; preparing the write
	// overwrites both, so restore them before each attempt.
	m := obj.GetObjectMeta()
	bodyRV, bodyManaged := m.ResourceVersion, m.ManagedFields
	tryUpdate := func(_ *storage.KeyValue, _ meta.Object) (meta.Object, error) {
		m.ResourceVersion, m.ManagedFields = bodyRV, bodyManaged
		return obj, nil
	}
	var create createFunc
	if req.res.kind.AllowCreateOnUpdate && req.subresource == "" {
		create = func() (meta.Object, *storage.KeyValue, error) {
			m.ResourceVersion, m.ManagedFields = bodyRV, bodyManaged
			return s.createStored(req.r.Context(), req.res, obj, dry, track)
		}
	}
	w, err := s.guaranteedUpdateStored(req.r.Context(), req, dry, tryUpdate, create, track)
	if err != nil {
		s.fail(req, err)
		return
	}
	code := http.StatusOK
	if w.created {
		code = http.StatusCreated
	}
	s.writeStored(req, code, w.obj, w.kv)
}

func (req *request) checkName(obj meta.Object) error {
	if name := obj.GetObjectMeta().Name; name != req.name {
		return status.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, req.name))
	}
	return nil
}

// updateFunc builds the desired object from the current one. It may be
// called more than once when a concurrent write wins the race.
type updateFunc func(cur *storage.KeyValue, old meta.Object) (meta.Object, error)

// guaranteedUpdate reads the current object, builds the new one with
// tryUpdate, and writes it with compare-and-swap, retrying on races. A
// resourceVersion in the new object is a precondition: when it does not
// match the current one the answer is 409 Conflict. When the object is
// missing, create (if not nil) is called instead. track (if not nil)
// records the write in managedFields.
func (s *Server) guaranteedUpdate(ctx context.Context, req *request, dry bool, tryUpdate updateFunc, create func() (meta.Object, error), track trackFunc) (meta.Object, bool, error) {
	var createKV createFunc
	if create != nil {
		createKV = func() (meta.Object, *storage.KeyValue, error) {
			obj, err := create()
			return obj, nil, err
		}
	}
	w, err := s.guaranteedUpdateStored(ctx, req, dry, tryUpdate, createKV, track)
	return w.obj, w.created, err
}

// createFunc creates the object an update did not find, returning the
// stored value (nil when not known or not stored).
type createFunc func() (meta.Object, *storage.KeyValue, error)

// written is the outcome of a write: the object, the value stored for it
// (nil when nothing was stored, or the object was deleted) and whether it
// was created.
type written struct {
	obj     meta.Object
	kv      *storage.KeyValue
	created bool
}

// guaranteedUpdateStored is guaranteedUpdate that also returns the stored
// value, from which a JSON answer is served without encoding the object
// again.
func (s *Server) guaranteedUpdateStored(ctx context.Context, req *request, dry bool, tryUpdate updateFunc, create createFunc, track trackFunc) (written, error) {
	r := req.res
	key := r.key(req.namespace, req.name)
	for races := 0; ; {
		cur, err := r.store.Get(ctx, key, storageGetOptions)
		if err != nil {
			return written{}, storageError(err)
		}
		if cur.KV == nil {
			if create == nil {
				return written{}, status.NotFound(r.gr, req.name)
			}
			out, kv, err := create()
			if status.IsAlreadyExists(err) && races < maxCreateRaces {
				// Created concurrently: update it instead.
				races++
				continue
			}
			return written{obj: out, kv: kv, created: err == nil}, err
		}
		old, err := r.decode(cur.KV)
		if err != nil {
			return written{}, status.InternalError(err)
		}
		obj, err := tryUpdate(cur.KV, old)
		if err != nil {
			return written{}, err
		}
		precondition, err := preconditionRevision(obj, r, req.name)
		if err != nil {
			return written{}, err
		}
		if precondition != 0 && precondition != cur.KV.ModRevision {
			return written{}, status.Conflict(r.gr, req.name, fmt.Errorf(status.OptimisticLockMessage))
		}
		if obj, err = s.prepareForUpdate(ctx, req, cur.KV, obj, old, dry, track); err != nil {
			return written{}, err
		}
		r.keepManagedFieldsTimes(obj, old, cur.KV)
		// A lost race is retried: tryUpdate sees the new object, and a
		// resourceVersion precondition then fails above.
		out, kv, done, err := s.writeUpdateStored(ctx, r, key, cur.KV, obj, dry)
		if err != nil || done {
			return written{obj: out, kv: kv}, err
		}
	}
}

var storageGetOptions storage.GetOptions

// maxCreateRaces bounds how often an update that creates retries when
// another request creates the object first.
const maxCreateRaces = 3

func preconditionRevision(obj meta.Object, r *resource, name string) (int64, error) {
	rv := obj.GetObjectMeta().ResourceVersion
	if rv == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n <= 0 {
		return 0, status.Invalid(r.kind.gvk(), name, status.FieldErrors{
			status.InvalidValue(status.NewPath("metadata", "resourceVersion"), rv, "must be a positive integer"),
		})
	}
	return n, nil
}

// prepareForUpdate carries over what the server owns from the old object,
// splits spec from status, bumps the generation on spec changes, and
// takes the result through defaulting, admission, managedFields (with
// track, unless nil) and validation (see admitWrite).
func (s *Server) prepareForUpdate(ctx context.Context, req *request, cur *storage.KeyValue, obj, old meta.Object, dry bool, track trackFunc) (meta.Object, error) {
	r := req.res
	switch {
	case req.subresource == "status" || req.subresource == "finalize":
		// A status (finalize) write changes status (what the kind's
		// Finalize copies) only: start from the stored object and take
		// that, and the managedFields the write carries.
		base, err := r.decodeCopy(old)
		if err != nil {
			return nil, err
		}
		if req.subresource == "status" {
			r.copyStatus(base, obj)
		} else {
			r.kind.Finalize(base, obj)
		}
		base.GetObjectMeta().ManagedFields = obj.GetObjectMeta().ManagedFields
		obj = base
	case r.kind.PrepareForUpdate != nil:
		r.kind.PrepareForUpdate(obj, old)
	}
	m, om := obj.GetObjectMeta(), old.GetObjectMeta()
	if m.UID != "" && m.UID != om.UID {
		return nil, status.Conflict(r.gr, req.name, fmt.Errorf("Precondition failed: UID in precondition: %s, UID in object meta: %s", m.UID, om.UID))
	}
	m.UID = om.UID
	m.Name, m.Namespace = om.Name, om.Namespace
	m.CreationTimestamp = om.CreationTimestamp
	m.DeletionTimestamp = om.DeletionTimestamp
	m.DeletionGracePeriodSeconds = om.DeletionGracePeriodSeconds
	m.SelfLink = ""
	m.ResourceVersion = om.ResourceVersion
	if req.subresource == "" && r.kind.StatusSubresource {
		r.copyStatus(obj, old)
	}
	record := func() map[string]any {
		// The generation follows the object as admission left it.
		m.Generation = om.Generation
		if r.specChanged(obj, old) {
			m.Generation++
		}
		if track != nil {
			return track(cur, obj, old)
		}
		return nil
	}
	a := r.admissionRequest(OperationUpdate, req.subresource, obj, old, dry)
	if err := s.admitWrite(ctx, r, a, record); err != nil {
		return nil, err
	}
	return obj, nil
}

// decodeCopy returns a deep copy of a stored object.
func (r *resource) decodeCopy(obj meta.Object) (meta.Object, error) {
	b, err := r.encode(obj)
	if err != nil {
		return nil, status.InternalError(err)
	}
	rv := obj.GetObjectMeta().ResourceVersion
	n, _ := strconv.ParseInt(rv, 10, 64)
	return r.decode(&storage.KeyValue{Value: b, ModRevision: n})
}

// writeUpdate stores obj over cur. done is false when a concurrent write
// won the race and the caller should retry. An update that changes
// nothing is not written and keeps its resourceVersion; one that removes
// the last finalizer of an object being deleted deletes it.
func (s *Server) writeUpdate(ctx context.Context, r *resource, key string, cur *storage.KeyValue, obj meta.Object, dry bool) (meta.Object, bool, error) {
	out, _, done, err := s.writeUpdateStored(ctx, r, key, cur, obj, dry)
	return out, done, err
}

// writeUpdateStored is writeUpdate that also returns the value stored for
// obj: cur's for an update that changes nothing, nil for a dry run or a
// delete.
func (s *Server) writeUpdateStored(ctx context.Context, r *resource, key string, cur *storage.KeyValue, obj meta.Object, dry bool) (meta.Object, *storage.KeyValue, bool, error) {
	value, err := r.encode(obj)
	if err != nil {
		return nil, nil, false, status.InternalError(err)
	}
	if dry {
		return obj, nil, true, nil
	}
	if bytes.Equal(value, cur.Value) {
		return obj, cur, true, nil
	}
	m := obj.GetObjectMeta()
	if m.DeletionTimestamp != nil && len(m.Finalizers) == 0 && !r.pending(obj) {
		resp, err := r.store.OptimisticDelete(ctx, key, cur.ModRevision, storageDeleteOptions)
		if err != nil {
			return nil, nil, false, storageError(err)
		}
		if resp.Succeeded {
			m.ResourceVersion = strconv.FormatInt(resp.Revision, 10)
		}
		return obj, nil, resp.Succeeded, nil
	}
	resp, err := r.store.OptimisticPut(ctx, key, value, cur.ModRevision, storagePutOptions)
	if err != nil {
		return nil, nil, false, storageError(err)
	}
	if !resp.Succeeded {
		return nil, nil, false, nil
	}
	m.ResourceVersion = strconv.FormatInt(resp.KV.ModRevision, 10)
	return obj, &storage.KeyValue{Key: key, Value: value, ModRevision: resp.KV.ModRevision}, true, nil
}
