package kinds

import (
	"context"

	"github.com/kapi-dev/kapi/apiserver/admission"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// Kind registers one Go type as a served kind.
type Kind struct {
	// Group, Version and Kind name the kind; Group is "" for the core
	// group.
	Group, Version, Kind string
	// Resource is the plural lower-case resource name ("widgets").
	Resource string
	// Singular is the singular resource name; default: Kind lower-cased.
	Singular string
	// ShortNames are abbreviations kubectl accepts ("wd").
	ShortNames []string
	// Categories group resources for kubectl ("all").
	Categories []string
	// Namespaced is true for namespaced kinds, false for cluster-scoped.
	Namespaced bool
	// New returns a new empty object of the kind. Required.
	New func() meta.Object
	// Schema describes the kind's structure; default: built from New's
	// type by reflection. Its defaults are applied and its constraints
	// checked on every write; for kinds served as meta.Unstructured
	// (typically with a schema from schema.FromOpenAPI) the fields it
	// does not know are also pruned, and reported as field validation
	// asks.
	//
	// The required fields of a Go type (neither a pointer, a slice nor a
	// map, without omitempty) must be present in every body written in
	// JSON, YAML or CBOR, or the write is 422 Invalid with a
	// FieldValueRequired cause; protobuf bodies cannot tell a zero value
	// from an absent one and are not checked. A Go field whose zero
	// value JSON leaves out (a number or boolean tagged omitempty) must
	// be a pointer when the schema gives it a non-zero default or a
	// bound that rejects zero: otherwise an explicit 0 would become the
	// default, or a write of 0 would remove the field instead of
	// failing, and Register refuses the kind.
	//
	// Defaults apply below an object only when a write has it, as
	// kube-apiserver defaults a custom resource. A struct field (a spec)
	// tagged omitzero is absent when zero: an object written without it
	// is stored without it, and one that sent it, even as {}, has it
	// defaulted (the body is read again to tell them apart). Without
	// omitzero a struct field is always present, and always defaulted.
	Schema *schema.Schema
	// Subresources are the status and scale subresources served.
	Subresources Subresources
	// CreateFromEmpty records a create in managedFields as
	// kube-apiserver records one of the kinds compiled into it: as a
	// change from the kind's empty object (New's), so that what that
	// object has already, such as a Namespace's empty spec, is nobody's.
	// Unset, as for custom resources, a create is recorded as a change
	// from nothing.
	CreateFromEmpty bool
	// AllowCreateOnUpdate lets a PUT to a missing name create it.
	AllowCreateOnUpdate bool
	// RequireResourceVersion refuses with 422 Invalid an update of a
	// stored object that names no resourceVersion to replace (a PUT
	// without one, a patch removing it), as kube-apiserver refuses it
	// for custom resources and CustomResourceDefinitions; by default such
	// an update replaces whatever is stored, as kube allows for most
	// built-in kinds.
	RequireResourceVersion bool
	// Storage stores this kind; default: the server's storage.
	Storage storage.Interface
	// StoredAs, when set, keeps the kind's objects as another kind's, in
	// that kind's storage and form, converted on every write and read
	// (see [StoredAs]).
	StoredAs *StoredAs
	// Default fills in defaults on every write, after the schema's.
	Default func(ctx context.Context, obj meta.Object)
	// Validate checks an object before it is stored, after the schema's
	// checks; old is nil on create. Field errors (the schema's and the
	// hook's) become one 422 Invalid Status.
	Validate func(ctx context.Context, obj, old meta.Object) status.FieldErrors
	// ValidateStatus, when set, checks writes to /status in place of
	// Validate, as kube-apiserver's status strategies check only what a
	// status write may change (a CustomResourceDefinition's status write
	// is not held to the rules of its spec or storedVersions).
	ValidateStatus func(ctx context.Context, obj, old meta.Object) status.FieldErrors
	// ValidateName returns what is wrong with an object's name (and with
	// the names its generateName makes); default: it must be a DNS
	// subdomain, kube-apiserver's rule for most kinds. See
	// [PathSegmentNameErrors].
	ValidateName func(name string) []string
	// SelectableFields are the kind-specific fields field selectors may
	// name ("spec.color"), each with the function that reads it from an
	// object; metadata.name and metadata.namespace are always selectable.
	SelectableFields map[string]func(obj meta.Object) string
	// Admit, when set, admits or rejects every write of the kind (see
	// [admission.Func]) first of all admission, before the server's
	// MutatingAdmission: after the request's object is decoded and
	// defaulted, before its name is generated and before it is
	// validated; it must not change the object. Like all admission, it
	// sees objects in the version of the request. A
	// CustomResourceDefinition being deleted uses it to refuse new
	// objects, where kube-apiserver refuses them: an invalid object is
	// refused as new, not as invalid.
	Admit admission.Func
	// PrinterColumns are the columns of the Table kubectl prints, after
	// Name; default: Created At.
	PrinterColumns []PrinterColumn
	// PrepareForCreate, when set, sets what the server decides on create
	// whatever the request says (a Namespace's phase and finalizer). It
	// runs where kube-apiserver runs its strategies' PrepareForCreate:
	// after defaulting, mutating admission and generateName, and after
	// managedFields were recorded, so what it sets is not recorded as the
	// request's; then the object is validated.
	PrepareForCreate func(obj meta.Object)
	// PrepareForUpdate, when set, carries over from the stored object
	// what writes to the main resource may not change (a Namespace's
	// spec.finalizers, which only /finalize changes). It runs where
	// PrepareForCreate runs, on update: the request's field manager is
	// recorded as owning what it sent, as in kube-apiserver, though the
	// hook undoes it.
	PrepareForUpdate func(obj, old meta.Object)
	// PrepareForStatusUpdate, when set, makes a write to /status keep
	// the request's object, metadata included (labels, annotations,
	// finalizers, owner references), as the status strategies of kube's
	// built-in kinds do (a Namespace's); the hook carries over from the
	// stored object old what such a write may not change (the
	// Namespace's spec). Unset, a write to /status changes status only,
	// as for custom resources. It runs before defaulting.
	PrepareForStatusUpdate func(obj, old meta.Object)
	// Canonicalize, when set, brings the object to store in line with
	// itself on every write (create, update, every patch, apply, the
	// status subresource), after validation and before validating
	// admission, as the Canonicalize of kube's strategies does: a
	// Namespace's kubernetes.io/metadata.name label follows its name,
	// which generateName may have only just chosen. It reports whether
	// it changed the object. What it changes is stored but not recorded
	// in managedFields, which were recorded before.
	Canonicalize func(obj meta.Object) (changed bool)
	// NoGeneration leaves metadata.generation to the client, as the
	// strategies of kube-apiserver's built-in kinds that keep none do
	// (Events, ConfigMaps, Secrets, Namespaces, ServiceAccounts, Leases,
	// the RBAC kinds; not CustomResourceDefinitions): a create keeps the
	// generation its body states (none, usually) and every later write
	// keeps the stored one, never bumping it. By default a create sets
	// generation 1 and a write that changes anything but metadata and
	// status bumps it.
	NoGeneration bool
	// Finalize, when set, serves the /finalize subresource (get, update,
	// patch): a write there changes only what Finalize copies from the
	// request's object src onto the stored object dst.
	Finalize func(dst, src meta.Object)
	// DeletePropagation is the policy of a delete that names none:
	// Background (the default), Foreground or Orphan, as kube-apiserver's
	// per-kind defaults.
	DeletePropagation meta.DeletionPropagation
	// ReturnDeletedObject answers a DELETE that removes an object with
	// the object as it was deleted, as kube-apiserver's stores of some
	// kinds do (a Namespace's), rather than with a Status of Success.
	ReturnDeletedObject bool
	// Deletion, when set, makes deleting an object of the kind two-phase
	// beyond its metadata finalizers (see [DeletionHooks]).
	Deletion *DeletionHooks

	// Versions serves the kind in several versions: it lists them all,
	// and Version is left empty. Objects are stored in the one marked
	// Storage and converted to the version of each request: Go types by
	// [Hub] and [Convertible], run-time kinds by Convert. A write is
	// defaulted and validated (schema, CEL rules) with the schema of the
	// version of the request, admission sees it in that version, and
	// managedFields record it in that version; the Go hooks above
	// (Default, Validate, the Prepare functions, Finalize, Deletion,
	// SelectableFields) are written against one type and see objects
	// converted to the storage version, and the field paths of
	// Validate's errors are the storage version's. A version's own
	// KindVersion.SelectableFields read objects in that version.
	Versions []KindVersion
	// Convert converts meta.Unstructured objects between Versions, one
	// object per call (as kube-apiserver sends a conversion webhook one
	// object per ConversionReview, a list's objects too); each object
	// converted for a read is kept for the reads that follow until it
	// changes. Nil changes only their apiVersion, as a
	// CustomResourceDefinition's strategy None.
	Convert ConvertFunc
}

// DeletionHooks make deletion two-phase for a kind whose objects must be
// emptied by a controller before they go, as Namespaces are: the first
// delete only marks the object (deletionTimestamp set, Mark applied), and
// it is removed once Pending is false and its metadata finalizers are
// gone.
type DeletionHooks struct {
	// Mark changes an object as it is first marked deleted (a
	// Namespace's phase becomes Terminating).
	Mark func(obj meta.Object)
	// Pending reports whether the kind's own finalizers remain (a
	// Namespace's spec.finalizers). While they do, a further delete
	// changes nothing and is answered with the object, as
	// kube-apiserver's namespace store answers it.
	Pending func(obj meta.Object) bool
	// PendingMessage, when set, refuses such a delete instead, with 409
	// Conflict and this message.
	PendingMessage string
}

// GroupVersion is the kind's group and version.
func (k *Kind) GroupVersion() meta.GroupVersion {
	return meta.GroupVersion{Group: k.Group, Version: k.Version}
}

// GroupVersionKind is the kind's group, version and name.
func (k *Kind) GroupVersionKind() meta.GroupVersionKind {
	return meta.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
}

// GroupResource is the kind's group and resource.
func (k *Kind) GroupResource() meta.GroupResource {
	return meta.GroupResource{Group: k.Group, Resource: k.Resource}
}

// Subresources are the subresources a kind serves besides the object.
type Subresources struct {
	// Status serves /status and splits spec from status: writes to the
	// object keep the stored status and writes to /status keep
	// everything else.
	Status bool
	// Scale serves /scale for autoscalers and kubectl scale.
	Scale *Scale
}
