package tables

import (
	"testing"
	"time"

	"github.com/kapi-dev/kapi/meta"
)

// TestPrinterCells checks that a row's cells read from stored JSON and
// from the decoded object agree: the name first unless a column is the
// name, the columns by type, dates as ages at the time of the request.
func TestPrinterCells(t *testing.T) {
	created := time.Now().Add(-90 * time.Second).UTC().Truncate(time.Second)
	obj := &meta.Unstructured{
		TypeMeta:   meta.TypeMeta{APIVersion: "v1", Kind: "Thing"},
		ObjectMeta: meta.ObjectMeta{Name: "a", CreationTimestamp: meta.NewTime(created)},
		Content:    map[string]any{"spec": map[string]any{"replicas": int64(3), "color": "red"}},
	}
	doc, err := obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	decoded := func() (meta.Object, error) { return obj, nil }
	for _, tc := range []struct {
		name  string
		p     Printer
		want  string
		cells int // of the row from the decoded object
	}{
		{"no columns", Printer{}, `"a",` + `"` + created.Format(time.RFC3339) + `"`, 2},
		{"columns", Printer{Columns: []Spec{
			{Type: "integer", JSONPath: ".spec.replicas"},
			{Type: "string", JSONPath: ".spec.missing"},
			{Type: "date", JSONPath: ".metadata.creationTimestamp"},
		}}, `"a",3,null,"90s"`, 4},
		{"named", Printer{Named: true, Columns: []Spec{
			{Type: "string", Cell: func(o meta.Object) any { return o.GetObjectMeta().Name + "!" }},
		}}, `"a!"`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cells := tc.p.AppendCells(nil, doc, decoded)
			if got := string(AppendAged(nil, cells, created.Add(90*time.Second))); got != tc.want {
				t.Errorf("cells %s, want %s", got, tc.want)
			}
			row, err := tc.p.Cells(obj)
			if err != nil {
				t.Fatal(err)
			}
			if len(row) != tc.cells {
				t.Errorf("decoded row %v: %d cells, want %d", row, len(row), tc.cells)
			}
		})
	}
}
