package apiserver_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// TestDeletePropagationFinalizers: a delete's policy puts the finalizer
// the garbage collector acts on (orphan, foregroundDeletion or none) on
// the object, as kube-apiserver does; Background with no other finalizer
// removes the object at once.
func TestDeletePropagationFinalizers(t *testing.T) {
	orphanKind := widgetKind()
	orphanKind.Kind, orphanKind.Resource, orphanKind.DeletePropagation = "Legacy", "legacies", meta.DeletePropagationOrphan
	ts := startWith(t, widgetKind(), orphanKind)
	legacyPath := "/apis/stable.example.com/v1/namespaces/default/legacies"
	cases := []struct {
		name       string
		path       string
		query      string
		body       string
		finalizers []string // nil: removed at once
	}{
		{"default is background", widgetsPath, "", "", nil},
		{"background", widgetsPath, "?propagationPolicy=Background", "", nil},
		{"foreground", widgetsPath, "?propagationPolicy=Foreground", "", []string{"foregroundDeletion"}},
		{"orphan", widgetsPath, "?propagationPolicy=Orphan", "", []string{"orphan"}},
		{"orphanDependents true", widgetsPath, "", `{"orphanDependents":true}`, []string{"orphan"}},
		{"orphanDependents false", widgetsPath, "", `{"orphanDependents":false}`, nil},
		{"body policy", widgetsPath, "", `{"propagationPolicy":"Foreground"}`, []string{"foregroundDeletion"}},
		{"kind default orphan", legacyPath, "", "", []string{"orphan"}},
		{"kind default overridden", legacyPath, "?propagationPolicy=Background", "", nil},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := "p" + string(rune('a'+i))
			if r := do(t, ts.Server, "POST", c.path, "application/json", `{"metadata":{"name":"`+name+`"}}`); r.code != http.StatusCreated {
				t.Fatalf("create: %d %s", r.code, r.body)
			}
			ct := ""
			if c.body != "" {
				ct = "application/json"
			}
			r := do(t, ts.Server, "DELETE", c.path+"/"+name+c.query, ct, c.body)
			if r.code != http.StatusOK && r.code != http.StatusAccepted {
				t.Fatalf("delete: %d %s", r.code, r.body)
			}
			g := do(t, ts.Server, "GET", c.path+"/"+name, "", "")
			if c.finalizers == nil {
				if g.code != http.StatusNotFound {
					t.Errorf("still there: %d %s", g.code, g.body)
				}
				return
			}
			w := decodeWidget(t, g)
			if w.DeletionTimestamp == nil || !slices.Equal(w.Finalizers, c.finalizers) {
				t.Errorf("deletionTimestamp %v finalizers %v, want %v", w.DeletionTimestamp, w.Finalizers, c.finalizers)
			}
		})
	}
}

// TestDeletePropagationChanges: deleting again with another policy swaps
// the finalizer and keeps other finalizers; a dry run changes nothing.
func TestDeletePropagationChanges(t *testing.T) {
	ts := newTestServer(t)
	do(t, ts, "POST", widgetsPath, "application/json", `{"metadata":{"name":"w","finalizers":["example.com/hold"]}}`)
	steps := []struct {
		query string
		want  []string
	}{
		{"?propagationPolicy=Orphan", []string{"example.com/hold", "orphan"}},
		{"?propagationPolicy=Foreground&dryRun=All", []string{"example.com/hold", "orphan"}},
		{"", []string{"example.com/hold", "orphan"}},
		{"?propagationPolicy=Foreground", []string{"example.com/hold", "foregroundDeletion"}},
		{"?propagationPolicy=Background", []string{"example.com/hold"}},
	}
	for _, st := range steps {
		if r := do(t, ts, "DELETE", widgetsPath+"/w"+st.query, "", ""); r.code != http.StatusOK {
			t.Fatalf("delete%s: %d %s", st.query, r.code, r.body)
		}
		w := decodeWidget(t, do(t, ts, "GET", widgetsPath+"/w", "", ""))
		if !slices.Equal(w.Finalizers, st.want) {
			t.Errorf("after delete%s: finalizers %v, want %v", st.query, w.Finalizers, st.want)
		}
	}
}

func TestDeletePropagationPolicyInvalid(t *testing.T) {
	ts := newTestServer(t)
	createWidget(t, ts, "bad", "")
	r := do(t, ts, "DELETE", widgetsPath+"/bad?propagationPolicy=Sideways", "", "")
	st := decodeStatus(t, r)
	if r.code != http.StatusUnprocessableEntity || st.Reason != meta.StatusReasonInvalid {
		t.Errorf("%d %s", r.code, r.body)
	}
}

func TestRegisterDeletePropagation(t *testing.T) {
	k := widgetKind()
	k.DeletePropagation = "Sometimes"
	if err := apiserver.New(apiserver.Options{}).Register(k).Err(); err == nil {
		t.Error("an unknown default policy was accepted")
	}
}
