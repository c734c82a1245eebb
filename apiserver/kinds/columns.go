package kinds

import (
	"github.com/kapi-dev/kapi/apiserver/internal/tables"
	"github.com/kapi-dev/kapi/meta"
)

// PrinterColumn is a column of the Table kubectl prints for a kind.
type PrinterColumn struct {
	// Name is the column header.
	Name string
	// Type is the OpenAPI type of the cells: integer, number, string,
	// boolean or date (an RFC 3339 time kubectl shows as an age).
	Type string
	// Format is an OpenAPI format hint. A column of format "name" takes
	// the place of the Name column the Table otherwise starts with, as
	// in kube's Table of Events, whose names come last.
	Format string
	// Description says what the column shows; default, for a JSONPath
	// column: kube-apiserver's description of a custom resource's column,
	// which names the path.
	Description string
	// Priority 0 columns are always shown; higher ones with -o wide.
	Priority int32
	// JSONPath selects the cell from the object: a dotted path such as
	// .spec.replicas.
	JSONPath string
	// Cell, when set, computes the cell from the object instead of
	// JSONPath, as kube-apiserver's printers do for built-in kinds (a
	// ConfigMap's key count, an Event's involved object). It returns a
	// value of the column's Type (string, int64, float64 or bool), a
	// meta.Time or meta.MicroTime (printed as an age), or nil for an
	// empty cell.
	Cell func(obj meta.Object) any
}

// AgeColumn is the Age column kube-apiserver's printers give the Tables
// of built-in kinds: a string cell, the time since the object's creation
// as kubectl shows ages ("5s", "3d4h"), or <unknown> without one. (A
// custom resource's Age column is a date instead: its cell is the same
// age, its type "date".)
func AgeColumn() PrinterColumn {
	return PrinterColumn{Name: "Age", Type: "string", Description: tables.CreatedAtColumnDesc,
		Cell: func(obj meta.Object) any { return obj.GetObjectMeta().CreationTimestamp }}
}
