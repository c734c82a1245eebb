package apiserver_test

import (
	"encoding/json"
	"net/http"
	"testing"
)

type scaleBody struct {
	Kind, APIVersion string
	Metadata         struct{ Name, ResourceVersion string }
	Spec             struct{ Replicas int32 }
	Status           struct {
		Replicas int32
		Selector string
	}
}

func TestScaleSubresource(t *testing.T) {
	ts := newTestServer(t)
	w := createWidget(t, ts, "sc", `{"replicas":2}`)
	do(t, ts, "PATCH", widgetsPath+"/sc/status", "application/merge-patch+json", `{"status":{"readyReplicas":1,"selector":"app=sc"}}`)

	decode := func(r response) scaleBody {
		t.Helper()
		var sc scaleBody
		if err := json.Unmarshal(r.body, &sc); err != nil || sc.Kind != "Scale" || sc.APIVersion != "autoscaling/v1" {
			t.Fatalf("%d %v %s", r.code, err, r.body)
		}
		return sc
	}
	sc := decode(do(t, ts, "GET", widgetsPath+"/sc/scale", "", ""))
	if sc.Spec.Replicas != 2 || sc.Status.Replicas != 1 || sc.Status.Selector != "app=sc" || sc.Metadata.Name != "sc" {
		t.Errorf("get scale: %+v", sc)
	}

	sc.Spec.Replicas = 5
	b, _ := json.Marshal(map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale",
		"metadata": map[string]any{"name": "sc", "resourceVersion": sc.Metadata.ResourceVersion}, "spec": map[string]any{"replicas": 5}})
	r := do(t, ts, "PUT", widgetsPath+"/sc/scale", "application/json", string(b))
	if got := decode(r); r.code != http.StatusOK || got.Spec.Replicas != 5 {
		t.Errorf("update scale: %d %s", r.code, r.body)
	}
	// The stale resourceVersion of the Scale is a conflict.
	if r := do(t, ts, "PUT", widgetsPath+"/sc/scale", "application/json", string(b)); r.code != http.StatusConflict {
		t.Errorf("stale scale update: %d %s", r.code, r.body)
	}
	r = do(t, ts, "PATCH", widgetsPath+"/sc/scale", "application/merge-patch+json", `{"spec":{"replicas":7}}`)
	if got := decode(r); got.Spec.Replicas != 7 {
		t.Errorf("patch scale: %s", r.body)
	}
	obj := decodeWidget(t, do(t, ts, "GET", widgetsPath+"/sc", "", ""))
	if *obj.Spec.Replicas != 7 || obj.Generation != 3 || obj.UID != w.UID {
		t.Errorf("widget after scaling: replicas %d generation %d", *obj.Spec.Replicas, obj.Generation)
	}
	// The kind's validation still applies.
	if r := do(t, ts, "PATCH", widgetsPath+"/sc/scale", "application/merge-patch+json", `{"spec":{"replicas":5000}}`); r.code != http.StatusUnprocessableEntity {
		t.Errorf("too many replicas: %d %s", r.code, r.body)
	}
	if r := do(t, ts, "PATCH", widgetsPath+"/sc/scale", "application/merge-patch+json", `{"spec":{"replicas":-1}}`); r.code != http.StatusUnprocessableEntity {
		t.Errorf("negative replicas: %d %s", r.code, r.body)
	}
	if r := do(t, ts, "GET", widgetsPath+"/missing/scale", "", ""); r.code != http.StatusNotFound {
		t.Errorf("missing: %d", r.code)
	}
}
