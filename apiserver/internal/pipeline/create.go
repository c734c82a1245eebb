package pipeline

import (
	"context"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// maxGenerateNameAttempts bounds retries when a generated name collides.
const maxGenerateNameAttempts = 8

// prepareForCreate sets the fields the server owns on a new object. The
// kind's own PrepareForCreate runs later (see [Write.prepareKind]).
func prepareForCreate(r *registry.Resource, obj meta.Object) {
	m := obj.GetObjectMeta()
	m.UID = NewUID()
	m.CreationTimestamp = meta.Now()
	if !r.Kind.NoGeneration {
		m.Generation = 1
	}
	m.ResourceVersion = ""
	m.SelfLink = ""
	m.DeletionTimestamp = nil
	m.DeletionGracePeriodSeconds = nil
	if r.Kind.Subresources.Status {
		r.ClearStatus(obj)
	}
}

// applyDefaults fills in the schema's defaults, then the kind's, and
// returns the object.
func applyDefaults(r *registry.Resource, ctx context.Context, obj meta.Object) (meta.Object, error) {
	if err := r.Plan.ApplyDefaults(obj); err != nil {
		return nil, status.InternalError(err)
	}
	switch {
	case r.Kind.Default == nil:
		return obj, nil
	case r.IsStorage():
		r.Kind.Default(ctx, obj)
		return obj, nil
	}
	return r.RunHook(obj, func(obj meta.Object) { r.Kind.Default(ctx, obj) })
}

// validate checks an object about to be written against the rules for
// metadata, the schema and the kind's hook; old is nil on create. decoded
// holds the JSON forms of obj and old the write already has; subresource
// is the one written to, "" for the resource itself.
func validate(r *registry.Resource, ctx context.Context, obj, old meta.Object, decoded JSONForms, subresource string) error {
	m := obj.GetObjectMeta()
	errs := validateObjectMeta(m, r.Kind.Namespaced, r.Kind.ValidateName)
	schemaErrs, err := r.Plan.Validate(obj, decoded.Object, decoded.objNullFree)
	if err != nil {
		return status.InternalError(err)
	}
	errs = append(errs, schemaErrs...)
	ruleErrs, warnings, err := r.Plan.ValidateRules(ctx, obj, old, decoded.Object, decoded.old, errs)
	if err != nil {
		return status.InternalError(err)
	}
	for _, w := range warnings {
		responsewriters.Warn(ctx, w)
	}
	errs = append(errs, ruleErrs...)
	if hook := validateFunc(r, subresource); hook != nil {
		hookErrs, err := r.ValidateHook(ctx, hook, obj, old)
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
		return status.Invalid(r.InvalidKind(), name, errs)
	}
	return nil
}

// validateFunc is the kind's hook validating a write to subresource:
// ValidateStatus for /status when the kind has one, else Validate.
func validateFunc(r *registry.Resource, subresource string) func(ctx context.Context, obj, old meta.Object) status.FieldErrors {
	if subresource == "status" && r.Kind.ValidateStatus != nil {
		return r.Kind.ValidateStatus
	}
	return r.Kind.Validate
}

// TrackCreate records a create that carries no managedFields, of an
// object of a typed kind whose metadata records labels, annotations and
// generateName only, as trackUpdate does, without the JSON form of the
// metadata: the field manager writes their entry from the typed
// metadata, and the form validation gets holds only its names, all
// that the kind's rules may read of it. ok is false for any other create,
// which trackUpdate records.
func TrackCreate(r *registry.Resource, obj meta.Object, manager, subresource string) (JSONForms, bool) {
	if r.Plan != nil && r.Plan.Rules != nil && r.Plan.RulesReadManagedFields {
		return JSONForms{}, false
	}
	m := obj.GetObjectMeta()
	if len(m.ManagedFields) != 0 || len(m.OwnerReferences) != 0 || len(m.Finalizers) != 0 {
		return JSONForms{}, false // recorded by the general path
	}
	whole := *m
	*m = meta.ObjectMeta{Name: whole.Name, GenerateName: whole.GenerateName}
	tree, nulls, ok := r.TypedFormNulls(obj)
	*m = whole
	if !ok {
		return JSONForms{}, false
	}
	entries, ok := r.Patcher.CreatedEntries(tree, m, manager, subresource)
	if !ok {
		return JSONForms{}, false
	}
	var pre []byte
	var hints registry.SpliceHints
	if r.SpliceManagedFields {
		var err error
		if pre, hints, err = r.EncodeForSplice(obj); err != nil {
			return JSONForms{}, false
		}
	}
	m.ManagedFields = entries
	if len(entries) == 1 && entries[0].FieldsV1 != nil {
		// Written by the field manager's walk, which writes compact
		// JSON only (see patch.FieldManager.CreatedEntries).
		hints.Compact = entries[0].FieldsV1.Raw
	}
	return JSONForms{Object: tree, Encoded: pre, Splice: hints, objNullFree: !nulls}, true
}
