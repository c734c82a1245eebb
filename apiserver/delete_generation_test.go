package apiserver_test

import (
	"net/http"
	"testing"
)

// TestDeleteMarkingBumpsGeneration: marking an object with finalizers as
// deleting bumps its generation once, as kube-apiserver does, so that
// controllers watching only generation changes see the deletion. Dry runs
// report the bump without storing it; repeated deletes change nothing.
func TestDeleteMarkingBumpsGeneration(t *testing.T) {
	ts := newTestServer(t)
	create := `{"metadata":{"name":"f","finalizers":["example.com/hold"]},"spec":{"color":"red"}}`
	if r := do(t, ts, "POST", widgetsPath, "application/json", create); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	for _, tc := range []struct {
		name        string
		query       string
		wantResp    int64 // generation in the DELETE response
		wantStored  int64 // generation a GET sees afterwards
		wantDeleted bool  // a deletionTimestamp is stored
	}{
		{"dry run", "?dryRun=All", 2, 1, false},
		{"first", "", 2, 2, true},
		{"again", "", 2, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, ts, "DELETE", widgetsPath+"/f"+tc.query, "", "")
			if r.code != http.StatusOK {
				t.Fatalf("delete: %d %s", r.code, r.body)
			}
			if w := decodeWidget(t, r); w.Generation != tc.wantResp || w.DeletionTimestamp == nil {
				t.Errorf("response: generation %d, deletionTimestamp %v; want generation %d", w.Generation, w.DeletionTimestamp, tc.wantResp)
			}
			w := decodeWidget(t, do(t, ts, "GET", widgetsPath+"/f", "", ""))
			if w.Generation != tc.wantStored || (w.DeletionTimestamp != nil) != tc.wantDeleted {
				t.Errorf("stored: generation %d, deletionTimestamp %v; want generation %d", w.Generation, w.DeletionTimestamp, tc.wantStored)
			}
		})
	}
}
