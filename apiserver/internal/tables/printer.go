package tables

import (
	"encoding/json"
	"time"

	"github.com/kapi-dev/kapi/internal/jsonscan"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Spec is one of a kind's printer columns as its rows read it.
type Spec struct {
	// Type is the OpenAPI type of the cells.
	Type string
	// JSONPath is the dotted path a cell is read from.
	JSONPath string
	// Cell, when set, computes the cell from the decoded object in
	// place of JSONPath.
	Cell func(obj meta.Object) any
}

// Printer prints the objects of one kind as the cells of Table rows.
type Printer struct {
	// Named is set when one of Columns is the name: the row does not
	// start with a Name cell then.
	Named bool
	// Columns are the kind's own; none: the creation time alone.
	Columns []Spec
}

// Cells are the cells of obj's row: the name (unless a column is the
// name), then the kind's columns or the creation time, dates as ages.
func (p Printer) Cells(obj meta.Object) ([]any, error) {
	m := obj.GetObjectMeta()
	var cells []any
	if !p.Named {
		cells = append(cells, m.Name)
	}
	if len(p.Columns) == 0 {
		return append(cells, m.CreationTimestamp), nil
	}
	var doc map[string]any
	for _, c := range p.Columns {
		if c.Cell != nil {
			cells = append(cells, ComputedCell(c.Cell(obj)))
			continue
		}
		if doc == nil {
			var err error
			if doc, err = ToMap(obj); err != nil {
				return cells, status.InternalError(err)
			}
		}
		cells = append(cells, Cell(LookupPath(doc, c.JSONPath), c.Type))
	}
	return cells, nil
}

// AppendCells appends the row's cells of the JSON object doc, encoded as
// JSON separated by commas, each date as a hole (AppendDateHole): the
// name (unless a column is the name), then the kind's columns or the
// creation time. Computed columns read the decoded object obj returns.
func (p Printer) AppendCells(dst, doc []byte, obj func() (meta.Object, error)) []byte {
	if !p.Named {
		name := jsonscan.Lookup(doc, ".metadata.name")
		if len(name) == 0 || name[0] != '"' {
			name = []byte(`""`)
		}
		dst = append(dst, name...)
	}
	if len(p.Columns) == 0 {
		created := jsonscan.Lookup(doc, ".metadata.creationTimestamp")
		if created == nil {
			created = []byte("null")
		}
		return append(append(dst, ','), created...)
	}
	for i, c := range p.Columns {
		if i > 0 || !p.Named {
			dst = append(dst, ',')
		}
		var (
			val    any
			t      time.Time
			isDate bool
		)
		if c.Cell != nil {
			val, t, isDate = computed(c.Cell, obj)
		} else {
			var v any
			if raw := jsonscan.Lookup(doc, c.JSONPath); raw != nil && json.Unmarshal(raw, &v) != nil {
				v = nil
			}
			val, t, isDate = CellOf(v, c.Type)
		}
		if isDate {
			dst = AppendDateHole(dst, t)
			continue
		}
		b, err := json.Marshal(val)
		if err != nil {
			b = []byte("null")
		}
		dst = append(dst, b...)
	}
	return dst
}

// computed is the cell of a computed column: times become dates (ages),
// zero times <unknown>.
func computed(cell func(meta.Object) any, obj func() (meta.Object, error)) (any, time.Time, bool) {
	o, err := obj()
	if err != nil {
		return nil, time.Time{}, false
	}
	switch v := cell(o).(type) {
	case meta.Time:
		if v.IsZero() {
			return "<unknown>", time.Time{}, false
		}
		return nil, v.Time, true
	case meta.MicroTime:
		if v.IsZero() {
			return "<unknown>", time.Time{}, false
		}
		return nil, v.Time, true
	default:
		return v, time.Time{}, false
	}
}
