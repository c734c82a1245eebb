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
		s.writeError(req.w, req.r, err)
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
	var create func() (meta.Object, error)
	if req.res.kind.AllowCreateOnUpdate && req.subresource == "" {
		create = func() (meta.Object, error) {
			m.ResourceVersion, m.ManagedFields = bodyRV, bodyManaged
			return s.createObject(req.r.Context(), req.res, obj, dry, track)
		}
	}
	out, created, err := s.guaranteedUpdate(req.r.Context(), req, dry, tryUpdate, create, track)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	s.writeObject(req, code, out)
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
	r := req.res
	key := r.key(req.namespace, req.name)
	for races := 0; ; {
		cur, err := r.store.Get(ctx, key, storageGetOptions)
		if err != nil {
			return nil, false, storageError(err)
		}
		if cur.KV == nil {
			if create == nil {
				return nil, false, status.NotFound(r.gr, req.name)
			}
			out, err := create()
			if status.IsAlreadyExists(err) && races < maxCreateRaces {
				// Created concurrently: update it instead.
				races++
				continue
			}
			return out, err == nil, err
		}
		old, err := r.decode(cur.KV)
		if err != nil {
			return nil, false, status.InternalError(err)
		}
		obj, err := tryUpdate(cur.KV, old)
		if err != nil {
			return nil, false, err
		}
		precondition, err := preconditionRevision(obj, r, req.name)
		if err != nil {
			return nil, false, err
		}
		if precondition != 0 && precondition != cur.KV.ModRevision {
			return nil, false, status.Conflict(r.gr, req.name, fmt.Errorf(status.OptimisticLockMessage))
		}
		if obj, err = s.prepareForUpdate(ctx, req, cur.KV, obj, old, dry, track); err != nil {
			return nil, false, err
		}
		r.keepManagedFieldsTimes(obj, old, cur.KV)
		// A lost race is retried: tryUpdate sees the new object, and a
		// resourceVersion precondition then fails above.
		out, done, err := s.writeUpdate(ctx, r, key, cur.KV, obj, dry)
		if err != nil || done {
			return out, false, err
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
	if req.subresource == "status" {
		// A status write changes status only: start from the stored
		// object and take the new status, and the managedFields the
		// write carries.
		base, err := r.decodeCopy(old)
		if err != nil {
			return nil, err
		}
		r.copyStatus(base, obj)
		base.GetObjectMeta().ManagedFields = obj.GetObjectMeta().ManagedFields
		obj = base
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
	record := func() {
		// The generation follows the object as admission left it.
		m.Generation = om.Generation
		if r.specChanged(obj, old) {
			m.Generation++
		}
		if track != nil {
			track(cur, obj, old)
		}
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
	value, err := r.encode(obj)
	if err != nil {
		return nil, false, status.InternalError(err)
	}
	if bytes.Equal(value, cur.Value) || dry {
		return obj, true, nil
	}
	m := obj.GetObjectMeta()
	if m.DeletionTimestamp != nil && len(m.Finalizers) == 0 {
		resp, err := r.store.OptimisticDelete(ctx, key, cur.ModRevision, storageDeleteOptions)
		if err != nil {
			return nil, false, storageError(err)
		}
		if resp.Succeeded {
			m.ResourceVersion = strconv.FormatInt(resp.Revision, 10)
		}
		return obj, resp.Succeeded, nil
	}
	resp, err := r.store.OptimisticPut(ctx, key, value, cur.ModRevision, storagePutOptions)
	if err != nil {
		return nil, false, storageError(err)
	}
	if !resp.Succeeded {
		return nil, false, nil
	}
	m.ResourceVersion = strconv.FormatInt(resp.KV.ModRevision, 10)
	return obj, true, nil
}
