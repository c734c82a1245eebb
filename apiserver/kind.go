package apiserver

import (
	"context"

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
	// type by reflection.
	Schema *schema.Schema
	// StatusSubresource serves /status and splits spec from status:
	// writes to the main resource keep the stored status and writes to
	// /status keep everything else.
	StatusSubresource bool
	// Scale serves /scale for autoscalers and kubectl scale.
	Scale *ScaleSubresource
	// AllowCreateOnUpdate lets a PUT to a missing name create it.
	AllowCreateOnUpdate bool
	// Storage stores this kind; default: the server's storage.
	Storage storage.Interface
	// Default fills in defaults on every write, after decoding.
	Default func(ctx context.Context, obj meta.Object)
	// Validate checks an object before it is stored; old is nil on
	// create. Field errors become a 422 Invalid Status.
	Validate func(ctx context.Context, obj, old meta.Object) status.FieldErrors
	// Fields returns the value of a kind-specific field for field
	// selectors ("spec.color"); metadata.name and metadata.namespace are
	// always supported.
	Fields func(obj meta.Object, field string) (value string, ok bool)
	// SelectableFields lists the field names Fields answers for.
	SelectableFields []string
	// PrinterColumns are the columns of the Table kubectl prints, after
	// Name; default: Created At.
	PrinterColumns []PrinterColumn
}

func (k *Kind) groupVersion() meta.GroupVersion {
	return meta.GroupVersion{Group: k.Group, Version: k.Version}
}

func (k *Kind) gvk() meta.GroupVersionKind {
	return meta.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
}

func (k *Kind) groupResource() meta.GroupResource {
	return meta.GroupResource{Group: k.Group, Resource: k.Resource}
}
