package apiserver_test

import (
	"encoding/json"
	"testing"
)

// TestTableIncludeObjectNone: with includeObject=None every row of a
// Table carries "object": null, as kube-apiserver's rows do (its
// RawExtension is never left out), in a list and in a get.
func TestTableIncludeObjectNone(t *testing.T) {
	ts := newColumnsServer(t)
	createWidget(t, ts.Server, "a", `{"color":"red"}`)
	for _, path := range []string{widgetsPath, widgetsPath + "/a"} {
		resp, body := get(t, ts.URL+path+"?includeObject=None", tableAccept)
		var tb struct {
			Rows []map[string]json.RawMessage `json:"rows"`
		}
		if err := json.Unmarshal(body, &tb); err != nil || resp.StatusCode != 200 || len(tb.Rows) != 1 {
			t.Fatalf("%s: %d %v %s", path, resp.StatusCode, err, body)
		}
		if obj, ok := tb.Rows[0]["object"]; !ok || string(obj) != "null" {
			t.Errorf("%s: row %s, want \"object\":null", path, body)
		}
	}
}
