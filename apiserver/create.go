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
func (h *handler) create(req *request) {
	rendering, err := h.negotiateWrite(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	in, err := h.readWrite(req, "CreateOptions")
	if err != nil {
		h.fail(req, err)
		return
	}
	w := &write{h: h, req: req, manager: in.manager, dryRun: in.dry, post: true,
		build: func(*storage.KeyValue, meta.Object) (meta.Object, error) { return in.obj, nil }}
	w.track = h.updateTracker(w)
	out, err := w.run(req.r.Context())
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeWritten(req, rendering, http.StatusCreated, out.obj, out.kv)
}

// prepareForCreate sets the fields the server owns on a new object. The
// kind's own PrepareForCreate runs later (see [write.prepareKind]).
func (r *resource) prepareForCreate(obj meta.Object) {
	m := obj.GetObjectMeta()
	m.UID = newUID()
	m.CreationTimestamp = meta.Now()
	if !r.kind.NoGeneration {
		m.Generation = 1
	}
	m.ResourceVersion = ""
	m.SelfLink = ""
	m.DeletionTimestamp = nil
	m.DeletionGracePeriodSeconds = nil
	if r.kind.Subresources.Status {
		r.clearStatus(obj)
	}
}

// applyDefaults fills in the schema's defaults, then the kind's, and
// returns the object.
func (r *resource) applyDefaults(ctx context.Context, obj meta.Object) (meta.Object, error) {
	if err := r.plan.ApplyDefaults(obj); err != nil {
		return nil, status.InternalError(err)
	}
	switch {
	case r.kind.Default == nil:
		return obj, nil
	case r.isStorage():
		r.kind.Default(ctx, obj)
		return obj, nil
	}
	return r.runHook(obj, func(obj meta.Object) { r.kind.Default(ctx, obj) })
}

// validate checks an object about to be written against the rules for
// metadata, the schema and the kind's hook; old is nil on create. decoded
// holds the JSON forms of obj and old the write already has; subresource
// is the one written to, "" for the resource itself.
func (r *resource) validate(ctx context.Context, obj, old meta.Object, decoded jsonForms, subresource string) error {
	m := obj.GetObjectMeta()
	errs := validateObjectMeta(m, r.kind.Namespaced, r.kind.ValidateName)
	schemaErrs, err := r.plan.Validate(obj, decoded.obj, decoded.objNullFree)
	if err != nil {
		return status.InternalError(err)
	}
	errs = append(errs, schemaErrs...)
	ruleErrs, warnings, err := r.plan.ValidateRules(ctx, obj, old, decoded.obj, decoded.old, errs)
	if err != nil {
		return status.InternalError(err)
	}
	for _, w := range warnings {
		warn(ctx, w)
	}
	errs = append(errs, ruleErrs...)
	if hook := r.validateFunc(subresource); hook != nil {
		hookErrs, err := r.validateHook(ctx, hook, obj, old)
		if err != nil {
			return err
		}
		errs = append(errs, hookErrs...)
	}
	if len(errs) > 0 {
		name := m.Name
		if name == "" {
			name = m.GenerateName
		}
		return status.Invalid(r.invalidKind(), name, errs)
	}
	return nil
}

// validateFunc is the kind's hook validating a write to subresource:
// ValidateStatus for /status when the kind has one, else Validate.
func (r *resource) validateFunc(subresource string) func(ctx context.Context, obj, old meta.Object) status.FieldErrors {
	if subresource == "status" && r.kind.ValidateStatus != nil {
		return r.kind.ValidateStatus
	}
	return r.kind.Validate
}

// create stores a new object. It returns the stored value, or nil when
// an object of that name is already stored. pre is obj's encoding
// without managedFields, or nil, and hints what the write knows of it
// (see storedValue).
func (r *resource) create(ctx context.Context, obj meta.Object, pre []byte, hints spliceHints) (*storage.KeyValue, error) {
	f, err := r.storedParts(obj, pre, hints)
	if err != nil {
		return nil, status.InternalError(err)
	}
	m := obj.GetObjectMeta()
	key := r.key(m.Namespace, m.Name)
	r.hintTerms(key, f.value, obj)
	// f.value is this write's own encoding, never changed after: the
	// store keeps it rather than a copy.
	resp, err := r.store.OptimisticPut(ctx, key, f.value, 0, storage.PutOptions{ValueOwned: true, Shared: f.shared})
	if err != nil {
		return nil, storageError(err)
	}
	if !resp.Succeeded {
		return nil, nil
	}
	m.ResourceVersion = strconv.FormatInt(resp.KV.ModRevision, 10)
	return &storage.KeyValue{Key: resp.KV.Key, Value: f.value, Shared: f.shared, ModRevision: resp.KV.ModRevision}, nil
}

// trackCreate records a create that carries no managedFields, of an
// object of a typed kind whose metadata records labels, annotations and
// generateName only, as trackUpdate does, without the JSON form of the
// metadata: the field manager writes their entry from the typed
// metadata, and the form validation gets holds only its names, all
// that the kind's rules may read of it. ok is false for any other create,
// which trackUpdate records.
func (r *resource) trackCreate(obj meta.Object, manager, subresource string) (jsonForms, bool) {
	if r.plan != nil && r.plan.Rules != nil && r.plan.RulesReadManagedFields {
		return jsonForms{}, false
	}
	m := obj.GetObjectMeta()
	if len(m.ManagedFields) != 0 || len(m.OwnerReferences) != 0 || len(m.Finalizers) != 0 {
		return jsonForms{}, false // recorded by the general path
	}
	whole := *m
	*m = meta.ObjectMeta{Name: whole.Name, GenerateName: whole.GenerateName}
	tree, nulls, ok := r.typedFormNulls(obj)
	*m = whole
	if !ok {
		return jsonForms{}, false
	}
	entries, ok := r.patcher.CreatedEntries(tree, m, manager, subresource)
	if !ok {
		return jsonForms{}, false
	}
	var pre []byte
	var hints spliceHints
	if r.spliceManagedFields {
		var err error
		if pre, hints, err = r.encodeForSplice(obj); err != nil {
			return jsonForms{}, false
		}
	}
	m.ManagedFields = entries
	if len(entries) == 1 && entries[0].FieldsV1 != nil {
		// Written by the field manager's walk, which writes compact
		// JSON only (see patch.FieldManager.CreatedEntries).
		hints.compact = entries[0].FieldsV1.Raw
	}
	return jsonForms{obj: tree, encoded: pre, splice: hints, objNullFree: !nulls}, true
}
