package apiserver_test

import (
	"encoding/json"
	"testing"

	"github.com/kapi-dev/kapi/kinds/corev1"
)

// TestTableComputedCells: columns with a Cell function are computed from
// the object, times among them printed as ages, and a column of format
// "name" replaces the leading Name column.
func TestTableComputedCells(t *testing.T) {
	ts := startWith(t, corev1.ConfigMapKind(), corev1.EventKind())
	do(t, ts.Server, "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"metadata":{"name":"c"},"data":{"a":"1","b":"2"},"binaryData":{"c":"AA=="}}`)
	do(t, ts.Server, "POST", "/api/v1/namespaces/default/events", "application/json",
		`{"metadata":{"name":"e1"},"involvedObject":{"kind":"Widget","name":"w","namespace":"default"},"reason":"Scaled","message":"up","type":"Normal","lastTimestamp":"2020-01-01T00:00:00Z","reportingComponent":"","reportingInstance":""}`)
	type table struct {
		ColumnDefinitions []struct {
			Name     string
			Priority int
		}
		Rows []struct{ Cells []any }
	}
	get := func(path string) table {
		r := send(t, ts.URL+path, "GET", map[string]string{"Accept": kubectlTableAccept}, nil)
		var tb table
		if err := json.Unmarshal(r.body, &tb); err != nil || len(tb.Rows) != 1 {
			t.Fatalf("%s: %d %s", path, r.code, r.body)
		}
		return tb
	}
	cm := get("/api/v1/namespaces/default/configmaps")
	if cm.ColumnDefinitions[0].Name != "Name" || cm.ColumnDefinitions[1].Name != "Data" || cm.Rows[0].Cells[1] != float64(3) {
		t.Errorf("configmap table %+v", cm)
	}
	ev := get("/api/v1/namespaces/default/events")
	var names []string
	for _, c := range ev.ColumnDefinitions {
		names = append(names, c.Name)
	}
	if names[0] != "Last Seen" || names[len(names)-1] != "Name" {
		t.Errorf("event columns %v", names)
	}
	cells := ev.Rows[0].Cells
	if len(cells) != len(names) || cells[1] != "Normal" || cells[3] != "widget/w" || cells[len(cells)-1] != "e1" {
		t.Errorf("event cells %v", cells)
	}
	if age, ok := cells[0].(string); !ok || age == "" || age == "<unknown>" {
		t.Errorf("last seen %v, want an age", cells[0])
	}
}
