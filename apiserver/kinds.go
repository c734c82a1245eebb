package apiserver

import "github.com/kapi-dev/kapi/apiserver/kinds"

// What a host registers is declared in package kinds; the types keep
// their names here.
type (
	Kind          = kinds.Kind
	KindVersion   = kinds.KindVersion
	Subresources  = kinds.Subresources
	Scale         = kinds.Scale
	StoredAs      = kinds.StoredAs
	DeletionHooks = kinds.DeletionHooks
	PrinterColumn = kinds.PrinterColumn
	ConvertFunc   = kinds.ConvertFunc
	Hub           = kinds.Hub
	Convertible   = kinds.Convertible
)

// AgeColumn is [kinds.AgeColumn].
func AgeColumn() PrinterColumn { return kinds.AgeColumn() }

// PathSegmentNameErrors is [kinds.PathSegmentNameErrors].
func PathSegmentNameErrors(name string) []string { return kinds.PathSegmentNameErrors(name) }
