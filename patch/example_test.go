package patch_test

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

func ExamplePatcher_Patch() {
	s, _ := schema.FromType(reflect.TypeFor[Widget]())
	p, _ := patch.New(patch.Config{Schema: s, Group: "stable.example.com", Version: "v1", Kind: "Widget"})

	doc := []byte(`{"spec":{"ports":[{"name":"http","port":80},{"name":"https","port":443}]}}`)
	out, _ := p.Patch(patch.StrategicMergePatchType, doc, []byte(`{"spec":{"ports":[{"name":"http","port":8080}]}}`))
	fmt.Println(string(out))
	out, _ = p.Patch(patch.MergePatchType, doc, []byte(`{"spec":{"ports":[{"name":"http","port":8080}]}}`))
	fmt.Println(string(out))
	_, err := p.Patch(patch.JSONPatchType, doc, []byte(`[{"op":"test","path":"/spec/ports/0/port","value":81}]`))
	st := status.FromError(err)
	fmt.Println(st.Code, st.Reason, st.Message)
	// Output:
	// {"spec":{"ports":[{"name":"http","port":8080},{"name":"https","port":443}]}}
	// {"spec":{"ports":[{"name":"http","port":8080}]}}
	// 422 Invalid the server rejected our request due to an error in our request
}

func ExampleFieldManager_Apply() {
	s, _ := schema.FromType(reflect.TypeFor[Widget]())
	now := func() time.Time { return time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) }
	fm, _ := patch.NewFieldManager(s, patch.FieldManagerOptions{Group: "stable.example.com", Version: "v1", Kind: "Widget", Now: now})

	// A user creates the Widget with kubectl apply --server-side.
	cfg := []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":3}}`)
	live, managed, _ := fm.Apply(nil, cfg, patch.ApplyOptions{Manager: "kubectl"})
	fmt.Println(string(live))
	for _, e := range managed {
		fmt.Println(e.Manager, e.Operation, e.Time.Format(time.RFC3339), string(e.FieldsV1.Raw))
	}

	// A controller applying another value conflicts, unless it forces.
	cfg = []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":5}}`)
	_, _, err := fm.Apply(live, cfg, patch.ApplyOptions{Manager: "autoscaler", LiveManaged: managed})
	var se *status.Error
	if errors.As(err, &se) {
		fmt.Println(se.Status.Code, se.Status.Message)
		fmt.Println(se.Status.Details.Causes[0].Field, se.Status.Details.Causes[0].Message)
	}
	live, managed, _ = fm.Apply(live, cfg, patch.ApplyOptions{Manager: "autoscaler", Force: true, LiveManaged: managed})
	fmt.Println(string(live))
	for _, e := range managed {
		fmt.Println(e.Manager, e.Operation, string(e.FieldsV1.Raw))
	}
	// Output:
	// {"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":3}}
	// kubectl Apply 2024-01-02T03:04:05Z {"f:spec":{"f:replicas":{}}}
	// 409 Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas
	// .spec.replicas conflict with "kubectl"
	// {"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":5}}
	// autoscaler Apply {"f:spec":{"f:replicas":{}}}
}

func ExampleFieldManager_Update() {
	s, _ := schema.FromType(reflect.TypeFor[Widget]())
	fm, _ := patch.NewFieldManager(s, patch.FieldManagerOptions{Group: "stable.example.com", Version: "v1", Kind: "Widget"})

	// POST: nothing stored yet.
	created := []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"blue"}}`)
	managed, _ := fm.Update(nil, created, patch.UpdateOptions{Manager: patch.ManagerName("", "kubectl/v1.31.0 (linux/amd64)")})
	fmt.Println(managed[0].Manager, managed[0].Operation, string(managed[0].FieldsV1.Raw))

	// PUT of /status by another client.
	live := []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","uid":"1"},"spec":{"color":"blue"}}`)
	updated := []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","uid":"1"},"spec":{"color":"blue"},"status":{"readyReplicas":1}}`)
	managed, _ = fm.Update(live, updated, patch.UpdateOptions{Manager: "widget-controller", Subresource: "status", LiveManaged: managed})
	for _, e := range managed {
		fmt.Println(e.Manager, e.Subresource, string(e.FieldsV1.Raw))
	}
	// Output:
	// kubectl Update {"f:spec":{".":{},"f:color":{}}}
	// kubectl  {"f:spec":{".":{},"f:color":{}}}
	// widget-controller status {"f:status":{".":{},"f:readyReplicas":{}}}
}
