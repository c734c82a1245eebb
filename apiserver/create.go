package apiserver

import (
	"context"
	"net/http"
	"strconv"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// maxGenerateNameAttempts bounds retries when a generated name collides.
const maxGenerateNameAttempts = 8

// create serves POST on a collection.
func (s *Server) create(req *request) {
	in, err := s.readWrite(req, "CreateOptions")
	if err != nil {
		s.fail(req, err)
		return
	}
	obj, dry, manager := in.obj, in.dry, in.manager
	out, kv, err := s.createStored(req.r.Context(), req.res, obj, dry, s.updateTracker(req, manager))
	if err != nil {
		s.fail(req, err)
		return
	}
	s.writeStored(req, http.StatusCreated, out, kv)
}

// prepareForCreate sets the fields the server owns on a new object.
func (r *resource) prepareForCreate(obj meta.Object) {
	m := obj.GetObjectMeta()
	m.UID = newUID()
	m.CreationTimestamp = meta.Now()
	m.Generation = 1
	m.ResourceVersion = ""
	m.SelfLink = ""
	m.DeletionTimestamp = nil
	m.DeletionGracePeriodSeconds = nil
	if r.kind.StatusSubresource {
		r.clearStatus(obj)
	}
	if r.kind.PrepareForCreate != nil {
		r.kind.PrepareForCreate(obj)
	}
}

// applyDefaults fills in the schema's defaults, then the kind's.
func (r *resource) applyDefaults(ctx context.Context, obj meta.Object) error {
	if err := r.kind.plan.applyDefaults(obj); err != nil {
		return status.InternalError(err)
	}
	if r.kind.Default != nil {
		r.kind.Default(ctx, obj)
	}
	return nil
}

// validate checks an object about to be written against the rules for
// metadata, the schema and the kind's hook; old is nil on create. decoded
// is obj decoded from its JSON, if the write already has it, or nil.
func (r *resource) validate(ctx context.Context, obj, old meta.Object, decoded map[string]any) error {
	m := obj.GetObjectMeta()
	errs := validateObjectMeta(m, r.kind.Namespaced)
	schemaErrs, err := r.kind.plan.validate(obj, decoded)
	if err != nil {
		return status.InternalError(err)
	}
	errs = append(errs, schemaErrs...)
	if r.kind.Validate != nil {
		errs = append(errs, r.kind.Validate(ctx, obj, old)...)
	}
	if len(errs) > 0 {
		name := m.Name
		if name == "" {
			name = m.GenerateName
		}
		return status.Invalid(r.kind.gvk(), name, errs)
	}
	return nil
}

// admitWrite defaults obj, runs mutating admission (and defaults again
// what it changed), records the write with track (unless nil), validates
// the result and runs validating admission: every write goes through
// these steps in this order before it is stored. track returns the object
// as decoded JSON when it decoded it, for validation to use.
func (s *Server) admitWrite(ctx context.Context, r *resource, a *AdmissionRequest, track func() map[string]any) error {
	if err := r.applyDefaults(ctx, a.Object); err != nil {
		return err
	}
	mutated, err := s.mutate(ctx, r, a)
	if err != nil {
		return err
	}
	if mutated {
		if err := r.applyDefaults(ctx, a.Object); err != nil {
			return err
		}
	}
	var decoded map[string]any
	if track != nil {
		decoded = track()
	}
	if err := r.validate(ctx, a.Object, a.OldObject, decoded); err != nil {
		return err
	}
	return s.admit(ctx, r, a)
}

// createObject stores a new object, generating its name when asked and
// retrying on generated-name collisions. track (if not nil) records the
// write in managedFields. With dry set nothing is stored.
func (s *Server) createObject(ctx context.Context, r *resource, obj meta.Object, dry bool, track trackFunc) (meta.Object, error) {
	out, _, err := s.createStored(ctx, r, obj, dry, track)
	return out, err
}

// createStored is createObject that also returns the stored value, nil
// for a dry run.
func (s *Server) createStored(ctx context.Context, r *resource, obj meta.Object, dry bool, track trackFunc) (meta.Object, *storage.KeyValue, error) {
	r.prepareForCreate(obj)
	m := obj.GetObjectMeta()
	generated := m.Name == "" && m.GenerateName != ""
	if generated {
		m.Name = generateName(m.GenerateName)
	}
	var record func() map[string]any
	if track != nil {
		record = func() map[string]any { return track(nil, obj, nil) }
	}
	if err := s.admitWrite(ctx, r, r.admissionRequest(OperationCreate, "", obj, nil, dry), record); err != nil {
		return nil, nil, err
	}
	if dry {
		return obj, nil, nil
	}
	for attempt := 1; ; attempt++ {
		value, err := r.encode(obj)
		if err != nil {
			return nil, nil, status.InternalError(err)
		}
		resp, err := r.store.OptimisticPut(ctx, r.key(m.Namespace, m.Name), value, 0, storagePutOptions)
		if err != nil {
			return nil, nil, storageError(err)
		}
		if resp.Succeeded {
			m.ResourceVersion = strconv.FormatInt(resp.KV.ModRevision, 10)
			return obj, &storage.KeyValue{Key: resp.KV.Key, Value: value, ModRevision: resp.KV.ModRevision}, nil
		}
		if !generated || attempt >= maxGenerateNameAttempts {
			return nil, nil, status.AlreadyExists(r.gr, m.Name)
		}
		m.Name = generateName(m.GenerateName)
	}
}
