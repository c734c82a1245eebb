package discovery

import (
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// Resource is what the documents say of one served resource in one
// version.
type Resource struct {
	Group, Version, Kind string
	Resource, Singular   string
	Namespaced           bool
	// Verbs in kube-apiserver's order for custom resources.
	Verbs                  []string
	ShortNames, Categories []string
	Subresources           []Subresource
	// StorageKind is the kind as stored, the input of the storage
	// version hash.
	StorageKind meta.GroupVersionKind
	// Schema models the kind's fields for its OpenAPI document.
	Schema *schema.Schema
	// Builtin marks a resource kapi itself serves without storing it
	// (the reviews): as for kube-apiserver's built-in resources, its
	// aggregated discovery names only the kind it answers with, it has no
	// storage version hash, and it is in no OpenAPI document.
	Builtin bool
}

// Subresource is a resource's subresource: its name, the kind its
// answers carry and its verbs.
type Subresource struct {
	Name, Group, Version, Kind string
	Verbs                      []string
}

func (r *Resource) groupVersion() meta.GroupVersion {
	return meta.GroupVersion{Group: r.Group, Version: r.Version}
}
