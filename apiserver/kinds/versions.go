package kinds

import (
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// KindVersion is one version of a kind served in several: see
// [Kind.Versions]. Its zero fields take the Kind's.
type KindVersion struct {
	// Name is the version ("v1beta1").
	Name string
	// New returns an empty object of this version; default: Kind.New.
	// Go types of different versions convert through the hub (see
	// [Hub] and [Convertible]).
	New func() meta.Object
	// Schema is this version's schema; default: Kind.Schema when New is
	// Kind's, else built from New's type.
	Schema *schema.Schema
	// PrinterColumns are this version's Table columns; default:
	// Kind.PrinterColumns.
	PrinterColumns []PrinterColumn
	// Subresources are this version's; default: Kind.Subresources.
	Subresources *Subresources
	// SelectableFields are the fields field selectors on this version
	// may name, each read from objects in this version, as a
	// CustomResourceDefinition's versions declare theirs; an empty map
	// allows none. Default (nil): Kind.SelectableFields, which read
	// objects in the storage version.
	SelectableFields map[string]func(obj meta.Object) string
	// Storage marks the version objects are stored in: exactly one
	// version has it. Objects stored in an earlier storage version are
	// converted when read and rewritten in this one when next written.
	Storage bool
	// NotServed keeps the version out of the API (and discovery); its
	// stored objects are still read.
	NotServed bool
	// Deprecated adds a Warning header to every request to the version:
	// DeprecationWarning, or by default "GROUP/VERSION KIND is
	// deprecated; use GROUP/NEWER KIND", as kube-apiserver words it for
	// custom resources: NEWER is the highest ranked served version that
	// is not deprecated and ranks above this one (v2 above v1 above
	// v1beta2 above v1beta1 above v1alpha1 above any other name, those
	// alphabetically); without one, the warning ends at "is deprecated".
	Deprecated         bool
	DeprecationWarning string
}

// ConvertFunc converts an object of a kind defined at run time
// (meta.Unstructured) from the version its apiVersion names into
// toAPIVersion ("stable.example.com/v1"), in place, and sets its
// apiVersion; a conversion webhook fits behind it. It must not change
// the object's metadata.
type ConvertFunc func(obj *meta.Unstructured, toAPIVersion string) error

// Hub is implemented by the Go type of the version every other version
// converts through (often, not necessarily, the storage version), as
// controller-runtime's conversion.Hub.
type Hub interface {
	meta.Object
	Hub()
}

// Convertible is implemented by the Go types of the versions other than
// the hub: ConvertTo fills hub from the receiver, ConvertFrom fills the
// receiver from hub, as controller-runtime's conversion.Convertible.
type Convertible interface {
	meta.Object
	ConvertTo(hub Hub) error
	ConvertFrom(hub Hub) error
}
