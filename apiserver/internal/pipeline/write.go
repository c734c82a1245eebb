package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// Write is one write on its way to the store: what its request decided
// once (manager, dry run, how managedFields are kept) and how it builds
// the object to store from the stored one. Create, update, patch, apply
// and the status and scale subresources all run through [Write.Run];
// delete shares its admission.
type Write struct {
	// Resource is the kind's resource in the version of the request.
	Resource *registry.Resource
	// Admission is the admission step; Log reports what the write could
	// not record (managedFields) but does not fail it.
	Admission *admission.Chain
	Log       *slog.Logger
	// Namespace, Name and Subresource are the request's: an object's
	// name is "" on a POST.
	Namespace, Name, Subresource string
	// Query holds the request's options admission sees.
	Query Query
	// Manager is the field manager the write is recorded under.
	Manager string
	// DryRun runs every step but stores nothing.
	DryRun bool
	// Post marks a create by POST: there is no stored object to read,
	// and one already stored under the name is a conflict.
	Post bool
	// CreateMissing creates an object that is not stored (PUT of a kind
	// with AllowCreateOnUpdate, apply); otherwise a missing object is
	// 404 Not Found.
	CreateMissing bool
	// Build returns the object the request asks to store, given the
	// stored value and object (both nil when there is none). It may run
	// more than once when a concurrent write wins the race.
	Build func(cur *storage.KeyValue, old meta.Object) (meta.Object, error)
	// Track records the write in managedFields; nil when build returns
	// the object with its entries already (apply).
	Track TrackFunc
	// generated is set when the server chose the object's name from its
	// generateName: a collision is retried with another name.
	generated bool
	// DeleteOptions are a delete's options, for admission.
	DeleteOptions *meta.DeleteOptions
	// encoded is the object's stored value without managedFields, made
	// when they were recorded, or nil (see storedValue).
	encoded []byte
	// splice is what the write knows of encoded, made with it, or zero
	// (see storedValue).
	splice registry.SpliceHints
	// LiveForm is the stored object's JSON form without managedFields
	// when build decoded it already (a merge patch), for track; nil
	// otherwise.
	LiveForm map[string]any
	// KeptEntries are the stored object's managedFields when a patch was
	// applied without them (they are put back on the result); nil
	// otherwise.
	KeptEntries []meta.ManagedFieldsEntry
}

// create stores a new object, or for a dry run checks that the store
// would take it. created is false when an object of that name is already
// stored.
func (w *Write) create(ctx context.Context, obj meta.Object) (kv *storage.KeyValue, created bool, err error) {
	r := w.sr()
	if !w.DryRun {
		kv, err := r.Create(ctx, obj, w.encoded, w.splice)
		return kv, kv != nil, err
	}
	m := obj.GetObjectMeta()
	resp, err := r.Store.Get(ctx, r.Key(m.Namespace, m.Name), storage.GetOptions{})
	if err != nil {
		return nil, false, registry.StorageError(err)
	}
	return nil, resp.KV == nil, nil
}

// Query holds the options of a write's request that admission sees
// (as CreateOptions or UpdateOptions).
type Query struct {
	DryRun                        []string
	FieldManager, FieldValidation string
}

// Written is the outcome of a write: the object, the value stored for it
// (nil when nothing was stored, or the object was deleted) and whether it
// was created.
type Written struct {
	Object  meta.Object
	KV      *storage.KeyValue
	Created bool
}

// maxCreateRaces bounds how often a write that creates a missing object
// starts again when another request creates it first.
const maxCreateRaces = 3

// Run takes the write through the pipeline. Every step up to the store
// runs in the version of the request: for a kind served in several
// versions ([Kind].Versions), the schema that defaults and validates the
// object and admission are those of that version, and the object is
// converted to the storage version only to be stored. The steps, in
// order:
//
//  1. read the stored object (not for a POST), in the storage version,
//     and convert it to the version of the request;
//  2. build the requested object from the request and the stored one;
//  3. check the preconditions: resourceVersion, UID;
//  4. set the fields the server owns: on an update what it carries
//     over from the stored object (the status split); on a create uid,
//     creation time and generation, after mutating admission (step 6);
//  5. default: the schema's defaults, then the kind's Default;
//  6. ADMISSION, mutating: the kind's Admit, then the server's mutating
//     functions (admission.Chain.Mutate), and default again what they
//     changed;
//  7. generate the name of a create that asks for one (generateName);
//  8. bump the generation and record managedFields, then run the
//     kind's PrepareForCreate or PrepareForUpdate (what they set is not
//     recorded, as in kube-apiserver);
//  9. validate: metadata, the schema, its CEL rules, the kind's Validate;
//  10. bring the object to its canonical form (the kind's
//     Canonicalize), then ADMISSION, validating
//     (admission.Chain.Validate);
//  11. convert the object to the storage version (a 500 naming both
//     versions when that fails, and nothing is stored);
//  12. store with compare-and-swap, starting again at 1 when a
//     concurrent write won the race; a dry run checks what the store
//     would refuse (an existing name) and stores nothing.
//
// The kind's Go hooks (Default, Validate, the Prepare functions,
// Finalize) see the object in the storage version wherever they run (see
// [registry.Resource.HookObject]). A kind of one version, or a write in the
// storage version, converts nothing.
func (w *Write) Run(ctx context.Context) (Written, error) {
	r := w.Resource
	for races := 0; ; {
		// 1. The stored object, and it in the version of the request.
		cur, stored, err := w.read(ctx)
		if err != nil {
			return Written{}, err
		}
		old, err := w.inRequestVersion(stored)
		if err != nil {
			return Written{}, err
		}
		// 2. The requested object.
		obj, err := w.Build(cur, old)
		if err != nil {
			return Written{}, err
		}
		// 3. Preconditions.
		if err := w.checkPreconditions(obj, cur); err != nil {
			return Written{}, err
		}
		// 4. Fields the server owns, on an update: what it carries over
		// from the stored object.
		if old != nil {
			if obj, err = w.prepareForUpdate(obj, old); err != nil {
				return Written{}, err
			}
		}
		// 5 and 6. Defaults and mutating admission.
		a := w.admissionRequest(ctx, operation(old), obj, old)
		if err := w.defaultAndMutate(ctx, a); err != nil {
			return Written{}, err
		}
		obj = a.Object
		// 4, on a create: the fields the server owns (uid, creation
		// time, generation), set after mutating admission, which sees
		// the object as the client sent it, as in kube-apiserver, whose
		// BeforeCreate sets them after the handler's admission.
		if old == nil {
			prepareForCreate(w.Resource, obj)
		}
		// 7. Generated name.
		a.Name = w.generateName(obj)
		// 8. Generation and managedFields, then the kind's preparation.
		// managedFields are recorded from the object as it was before
		// webhooks and policies replaced it (a.Original), as
		// kube-apiserver records them before mutating admission.
		decoded := w.record(cur, obj, a.Original(), old)
		w.encoded, w.splice = decoded.Encoded, decoded.Splice
		if obj, err = w.prepareKind(obj, old, &decoded); err != nil {
			return Written{}, err
		}
		// 9. Validation.
		if err := validate(r, ctx, obj, old, decoded, w.Subresource); err != nil {
			return Written{}, err
		}
		// 10. The canonical form, then validating admission.
		if obj, err = w.canonicalize(obj); err != nil {
			return Written{}, err
		}
		a.Object = obj
		if err := w.Admission.Validate(ctx, r.GroupResource, a); err != nil {
			return Written{}, err
		}
		// 11. Conversion to the storage version.
		sobj, err := w.convert(obj)
		if err != nil {
			return Written{}, err
		}
		// 12. Store.
		out, done, err := w.store(ctx, cur, sobj, stored)
		if status.IsAlreadyExists(err) && !w.Post && races < maxCreateRaces {
			races++ // created concurrently: update it instead
			continue
		}
		if err != nil || done {
			return w.result(out, obj), err
		}
	}
}

// read returns the stored value and object the write starts from, both
// nil when there is none and the write may create it.
func (w *Write) read(ctx context.Context) (*storage.KeyValue, meta.Object, error) {
	if w.Post {
		return nil, nil, nil
	}
	r := w.sr()
	resp, err := r.Store.Get(ctx, r.Key(w.Namespace, w.Name), storage.GetOptions{})
	if err != nil {
		return nil, nil, registry.StorageError(err)
	}
	if resp.KV == nil {
		if !w.CreateMissing {
			return nil, nil, status.NotFound(r.GroupResource, w.Name)
		}
		return nil, nil, nil
	}
	if r.Normalized {
		resp.KV = r.Normalize(resp.KV) // read as the cache reads it
	}
	old, err := r.DecodeTransient(resp.KV)
	if err != nil {
		return nil, nil, status.InternalError(err)
	}
	if !w.DryRun {
		// The cache unindexes the value this write replaces: it needs
		// its terms again, which the hint it took when indexing it no
		// longer gives. Leave them, read off the object decoded here,
		// before anything may change it.
		r.HintTerms(resp.KV.Key, resp.KV.Value, old)
	}
	return resp.KV, old, nil
}

// sr is the resource of the storage version, which stores the object:
// w.r itself for a kind of one version.
func (w *Write) sr() *registry.Resource { return w.Resource.StorageVersion }

// convert turns the request's object into the storage version, just
// before it is stored. A conversion failure is a 500 naming the
// versions, and nothing is stored.
func (w *Write) convert(obj meta.Object) (meta.Object, error) {
	if w.Resource.IsStorage() {
		return obj, nil
	}
	return w.Resource.ToStorage(obj)
}

// result returns the outcome of a write with its object in the version
// of the request: obj, the request's object, takes the metadata the
// store gave the converted one (resourceVersion, a generated name).
func (w *Write) result(out Written, obj meta.Object) Written {
	if out.Object == nil || out.Object == obj {
		return out
	}
	*obj.GetObjectMeta() = *out.Object.GetObjectMeta()
	out.Object = obj
	return out
}

// inRequestVersion returns the stored object old (nil on create) in the
// version of the request, in which the write runs.
func (w *Write) inRequestVersion(old meta.Object) (meta.Object, error) {
	if old == nil || w.Resource.IsStorage() {
		return old, nil
	}
	return w.Resource.InVersion(old)
}

// checkPreconditions checks the resourceVersion an update carries against
// the stored one: a mismatch is 409 Conflict, and none at all is 422 for
// a kind that requires one (a scale write takes the stored object's, as
// kube-apiserver's does).
func (w *Write) checkPreconditions(obj meta.Object, cur *storage.KeyValue) error {
	if cur == nil {
		return nil
	}
	r := w.Resource
	precondition, err := preconditionRevision(obj, r, w.Name)
	if err != nil {
		return err
	}
	if precondition == 0 && r.Kind.RequireResourceVersion && w.Subresource != "scale" {
		return status.Invalid(meta.GroupVersionKind{Group: r.GroupResource.Group, Kind: r.GroupResource.Resource}, w.Name, status.FieldErrors{
			status.InvalidValue(status.NewPath("metadata", "resourceVersion"), 0, "must be specified for an update")})
	}
	if precondition != 0 && precondition != cur.ModRevision {
		return status.Conflict(r.GroupResource, w.Name, fmt.Errorf(status.OptimisticLockMessage))
	}
	return nil
}

func preconditionRevision(obj meta.Object, r *registry.Resource, name string) (int64, error) {
	rv := obj.GetObjectMeta().ResourceVersion
	if rv == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || n <= 0 {
		return 0, status.Invalid(r.InvalidKind(), name, status.FieldErrors{
			status.InvalidValue(status.NewPath("metadata", "resourceVersion"), rv, "must be a positive integer"),
		})
	}
	return n, nil
}

// prepareKind runs the kind's PrepareForCreate, or on an update of the
// object itself (or of its scale) its PrepareForUpdate, where kube's
// strategies run theirs: after mutating admission and after managedFields
// were recorded, so that the request's field manager is not recorded as
// owning what they set (a Namespace's kubernetes finalizer), and before
// validation. The forms and encoding recording made are then stale and
// dropped, and the generation is worked out again on what the hook left.
func (w *Write) prepareKind(obj, old meta.Object, decoded *JSONForms) (meta.Object, error) {
	r := w.Resource
	sub := w.Subresource
	var err error
	switch {
	case old == nil && r.Kind.PrepareForCreate != nil:
		obj, err = r.RunHook(obj, r.Kind.PrepareForCreate)
	case old != nil && r.Kind.PrepareForUpdate != nil && sub != "status" && sub != "finalize":
		if obj, err = prepareHook(r, obj, old, r.Kind.PrepareForUpdate); err == nil {
			w.setGeneration(obj, old)
		}
	default:
		return obj, nil
	}
	w.encoded, w.splice, *decoded = nil, registry.SpliceHints{}, JSONForms{}
	return obj, err
}

// generateName names an object created without a name from its
// generateName, after mutating admission (which sees the name empty), as
// kube-apiserver does. It returns the object's name.
func (w *Write) generateName(obj meta.Object) string {
	m := obj.GetObjectMeta()
	if m.Name == "" && m.GenerateName != "" {
		m.Name, w.generated = generateName(m.GenerateName), true
	}
	return m.Name
}

// canonicalize runs the kind's Canonicalize on obj, the object about to
// be stored, and returns the object to go on with. A change makes the
// encoding recording managedFields made stale, so it is dropped and the
// object encoded again when stored.
func (w *Write) canonicalize(obj meta.Object) (meta.Object, error) {
	c := w.Resource.Kind.Canonicalize
	if c == nil {
		return obj, nil
	}
	changed := false
	obj, err := w.Resource.RunHook(obj, func(obj meta.Object) { changed = c(obj) })
	if changed {
		w.encoded, w.splice = nil, registry.SpliceHints{}
	}
	return obj, err
}

// operation is the admission operation of a write over old.
func operation(old meta.Object) admission.Operation {
	if old == nil {
		return admission.Create
	}
	return admission.Update
}

// defaultAndMutate applies defaults, runs mutating admission and, when
// there is any, applies defaults again to what it changed. a.Object is
// the object to go on with.
func (w *Write) defaultAndMutate(ctx context.Context, a *admission.Request) (err error) {
	r := w.Resource
	if a.Object, err = applyDefaults(r, ctx, a.Object); err != nil {
		return err
	}
	mutated, err := w.Admission.Mutate(ctx, r.GroupResource, r.Kind.Admit, a)
	if err != nil || !mutated {
		return err
	}
	a.Object, err = applyDefaults(r, ctx, a.Object)
	return err
}

// record bumps the generation of an update whose spec changed and
// records the write in managedFields: from original, the object before
// mutating admission replaced it, when it did (see
// admission.Request.ReplaceObject), else from obj. It returns the JSON
// forms of obj and old that recording decoded, for validation to use
// (none when it recorded from original).
func (w *Write) record(cur *storage.KeyValue, obj, original, old meta.Object) JSONForms {
	if old != nil {
		// The generation follows the object as admission left it.
		w.setGeneration(obj, old)
	}
	if w.Track == nil {
		return ruleForms(w.Resource, cur, obj, old)
	}
	if original == nil || original == obj {
		return w.Track(cur, obj, old)
	}
	// Recorded from the object before admission replaced it; the forms
	// and encoding recording made are of that object, not obj's.
	w.Track(cur, original, old)
	obj.GetObjectMeta().ManagedFields = original.GetObjectMeta().ManagedFields
	return JSONForms{}
}

// setGeneration carries the stored object's generation over to obj,
// bumped when anything but metadata and status changed, unless the kind
// keeps none.
func (w *Write) setGeneration(obj, old meta.Object) {
	m, om := obj.GetObjectMeta(), old.GetObjectMeta()
	m.Generation = om.Generation
	if !w.Resource.Kind.NoGeneration && w.Resource.SpecChanged(obj, old) {
		m.Generation++
	}
}

// store writes obj: a create when there is no stored object (retrying a
// generated name that collides), else a compare-and-swap over cur. done
// is false when a concurrent write won the race and the write must start
// again. A dry run stores nothing.
func (w *Write) store(ctx context.Context, cur *storage.KeyValue, obj, old meta.Object) (Written, bool, error) {
	r := w.sr()
	if cur == nil {
		m := obj.GetObjectMeta()
		for attempt := 1; ; attempt++ {
			kv, created, err := w.create(ctx, obj)
			if created || err != nil {
				return Written{Object: obj, KV: kv, Created: err == nil}, true, err
			}
			if !w.generated || attempt >= maxGenerateNameAttempts {
				return Written{}, true, status.AlreadyExists(r.GroupResource, m.Name)
			}
			m.Name = generateName(m.GenerateName)
			w.encoded, w.splice = nil, registry.SpliceHints{} // of the old name
			if c := r.Kind.Canonicalize; c != nil {
				c(obj) // obj is in the storage version here
			}
		}
	}
	KeepManagedFieldsTimes(r, obj, old, cur, w.encoded)
	if w.DryRun {
		return Written{Object: obj}, true, nil
	}
	kv, done, err := r.Replace(ctx, cur, obj, w.encoded)
	return Written{Object: obj, KV: kv}, done, err
}
