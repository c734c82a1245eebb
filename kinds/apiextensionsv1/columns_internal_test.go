package apiextensionsv1

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/meta"
)

// TestColumnCells: the cells of columns whose paths kube-apiserver takes
// as it filled them for the same object (kube-apiserver v1.37): a
// recursive descent finds the field below, a path that selects nothing
// is empty.
func TestColumnCells(t *testing.T) {
	obj := &meta.Unstructured{Content: map[string]any{"spec": map[string]any{
		"color": "red", "list": []any{"a", "b"}, "replicas": int64(3), "deep": map[string]any{"x": map[string]any{"size": "L"}}}}}
	tests := []struct {
		path, typ string
		want      any
	}{
		{".spec..color", "string", "red"},
		{".spec..size", "string", "L"},
		{"..replicas", "integer", int64(3)},
		{".spec.list[0]", "string", "a"},
		{".spec.nope", "string", nil},
		{".", "string", nil},
	}
	for _, tc := range tests {
		cols := printerColumns([]CustomResourceColumnDefinition{{Name: "C", Type: tc.typ, JSONPath: tc.path}})
		if len(cols) != 1 || cols[0].Cell == nil {
			t.Fatalf("%s: columns %+v", tc.path, cols)
		}
		if diff := cmp.Diff(tc.want, cols[0].Cell(obj)); diff != "" {
			t.Errorf("%s (-kube-apiserver +kapi):\n%s", tc.path, diff)
		}
	}
}

// TestColumnsUpToUnparsable: as kube-apiserver, a table has the columns
// before the first whose path its JSONPath parser refuses.
func TestColumnsUpToUnparsable(t *testing.T) {
	cols := printerColumns([]CustomResourceColumnDefinition{
		{Name: "Color", Type: "string", JSONPath: ".spec.color"},
		{Name: "Bad", Type: "string", JSONPath: ".spec[.x"},
		{Name: "Num", Type: "integer", JSONPath: ".spec.replicas"},
	})
	var names []string
	for _, c := range cols {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"Color"}, names); diff != "" {
		t.Errorf("columns (-kube-apiserver +kapi):\n%s", diff)
	}
}
