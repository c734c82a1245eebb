package apiserver_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScaleOwnership follows the seed's hand-over of replicas from a user
// to a controller: the user applies with replicas, a controller scales
// through /scale and so takes replicas, the user's apply with another
// replicas conflicts with the controller, and the user's apply without
// replicas keeps the controller's value.
func TestScaleOwnership(t *testing.T) {
	ts := newTestServer(t)
	apply := func(spec string, query string) response {
		t.Helper()
		return do(t, ts, "PATCH", widgetsPath+"/h?fieldManager=user"+query, applyType, widgetConfig("h", spec))
	}
	get := func() widget {
		t.Helper()
		return decodeWidget(t, do(t, ts, "GET", widgetsPath+"/h", "", ""))
	}
	if r := apply(`{"replicas":3,"color":"red"}`, ""); r.code != http.StatusCreated {
		t.Fatalf("first apply: %d %s", r.code, r.body)
	}
	if got := fieldsOf(get(), "user"); got != `{"f:spec":{"f:color":{},"f:replicas":{}}}` {
		t.Fatalf("user's fields after apply: %s", got)
	}

	r := do(t, ts, "PATCH", widgetsPath+"/h/scale?fieldManager=controller", "application/merge-patch+json", `{"spec":{"replicas":5}}`)
	if r.code != http.StatusOK {
		t.Fatalf("scale: %d %s", r.code, r.body)
	}
	w := get()
	if *w.Spec.Replicas != 5 {
		t.Fatalf("replicas after scaling: %d", *w.Spec.Replicas)
	}
	if diff := cmp.Diff([]string{"controller/Update/scale", "user/Apply"}, managers(w)); diff != "" {
		t.Errorf("managers after scaling (-want +got):\n%s", diff)
	}
	if got := fieldsOf(w, "user"); got != `{"f:spec":{"f:color":{}}}` {
		t.Errorf("user's fields after scaling: %s", got)
	}
	if got := fieldsOf(w, "controller"); got != `{"f:spec":{"f:replicas":{}}}` {
		t.Errorf("controller's fields: %s", got)
	}
	for _, e := range w.ManagedFields {
		if e.Manager == "controller" && (e.APIVersion != "stable.example.com/v1" || e.Time != nil) {
			t.Errorf("controller's entry: apiVersion %q time %v; want the Widget's apiVersion and, as kube, no time", e.APIVersion, e.Time)
		}
	}

	// Applying another replicas now conflicts with the controller.
	r = apply(`{"replicas":7,"color":"red"}`, "")
	st := decodeStatus(t, r)
	const msg = `Apply failed with 1 conflict: conflict with "controller" with subresource "scale" using stable.example.com/v1: .spec.replicas`
	if r.code != http.StatusConflict || st.Reason != "Conflict" || st.Message != msg {
		t.Errorf("apply with other replicas: %d %s %q", r.code, st.Reason, st.Message)
	}
	if st.Details == nil || len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != ".spec.replicas" {
		t.Errorf("conflict causes: %+v", st.Details)
	}

	// Dropping replicas from the configuration keeps the controller's value.
	if r := apply(`{"color":"blue"}`, ""); r.code != http.StatusOK {
		t.Fatalf("apply without replicas: %d %s", r.code, r.body)
	}
	w = get()
	if *w.Spec.Replicas != 5 || w.Spec.Color != "blue" {
		t.Errorf("after the apply without replicas: replicas %d color %q", *w.Spec.Replicas, w.Spec.Color)
	}
	if got := fieldsOf(w, "controller"); got != `{"f:spec":{"f:replicas":{}}}` {
		t.Errorf("controller's fields after the user's apply: %s", got)
	}

	// The controller scales again: its entry keeps replicas, nobody else
	// gains or loses anything.
	r = do(t, ts, "PATCH", widgetsPath+"/h/scale?fieldManager=controller", "application/merge-patch+json", `{"spec":{"replicas":6}}`)
	if r.code != http.StatusOK {
		t.Fatalf("second scale: %d %s", r.code, r.body)
	}
	w = get()
	if diff := cmp.Diff([]string{"controller/Update/scale", "user/Apply"}, managers(w)); diff != "" {
		t.Errorf("after the second scale: managers (-want +got):\n%s", diff)
	}
	if fieldsOf(w, "user") != `{"f:spec":{"f:color":{}}}` {
		t.Errorf("after the second scale: user's fields %s", fieldsOf(w, "user"))
	}
}

// TestScaleOwnershipUnchangedReplicas checks that a /scale write that
// keeps the replicas moves no ownership.
func TestScaleOwnershipUnchangedReplicas(t *testing.T) {
	ts := newTestServer(t)
	r := do(t, ts, "PATCH", widgetsPath+"/u?fieldManager=user", applyType, widgetConfig("u", `{"replicas":3}`))
	if r.code != http.StatusCreated {
		t.Fatalf("apply: %d %s", r.code, r.body)
	}
	before := decodeWidget(t, r)
	r = do(t, ts, "PATCH", widgetsPath+"/u/scale?fieldManager=controller", "application/merge-patch+json", `{"spec":{"replicas":3}}`)
	if r.code != http.StatusOK {
		t.Fatalf("scale: %d %s", r.code, r.body)
	}
	after := decodeWidget(t, do(t, ts, "GET", widgetsPath+"/u", "", ""))
	if diff := cmp.Diff(before.ManagedFields, after.ManagedFields); diff != "" {
		t.Errorf("managedFields (-before +after):\n%s", diff)
	}
	if after.ResourceVersion != before.ResourceVersion {
		t.Errorf("resourceVersion %s → %s", before.ResourceVersion, after.ResourceVersion)
	}
}
