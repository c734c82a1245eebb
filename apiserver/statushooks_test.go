package apiserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// A kind's ValidateStatus checks writes to /status in place of Validate,
// and PrepareForUpdate sees a write to the resource with the stored
// status already in place, so it may derive status from the new spec,
// as kube-apiserver's strategies do.
func TestStatusHooks(t *testing.T) {
	k := widgetKind()
	k.Validate = func(_ context.Context, obj, _ meta.Object) status.FieldErrors {
		if obj.(*widget).Status.Selector == "bad" {
			return status.FieldErrors{status.InvalidValue(status.NewPath("status", "selector"), "bad", "refused by Validate")}
		}
		return nil
	}
	k.ValidateStatus = func(_ context.Context, obj, _ meta.Object) status.FieldErrors {
		if obj.(*widget).Status.ReadyReplicas > 5 {
			return status.FieldErrors{status.InvalidValue(status.NewPath("status", "readyReplicas"), 6, "refused by ValidateStatus")}
		}
		return nil
	}
	k.PrepareForUpdate = func(obj, old meta.Object) {
		w := obj.(*widget)
		if w.Status.Selector != old.(*widget).Status.Selector {
			panic("PrepareForUpdate saw a status other than the stored one")
		}
		if o := old.(*widget); w.Spec.Color != o.Spec.Color {
			w.Status.Selector = "color=" + w.Spec.Color // derived from the new spec
		}
	}
	ts := serveKinds(t, apiserver.Options{}, k)
	const path = "/apis/stable.example.com/v1/namespaces/default/widgets"
	if r := do(t, ts, "POST", path, "application/json", `{"metadata":{"name":"a"},"spec":{"color":"red"}}`); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	tests := []struct {
		name, method, path, body string
		code                     int
		want                     string
	}{
		{"a status write is held to ValidateStatus", "PATCH", path + "/a/status", `{"status":{"readyReplicas":6}}`, 422, "refused by ValidateStatus"},
		{"not to Validate", "PATCH", path + "/a/status", `{"status":{"selector":"bad"}}`, 200, `"selector":"bad"`},
		{"a write to the resource is held to Validate, even for the stored status", "PATCH", path + "/a",
			`{"metadata":{"labels":{"x":"y"}}}`, 422, "refused by Validate"},
		{"a write to the resource keeps the stored status, then PrepareForUpdate derives it", "PATCH", path + "/a",
			`{"spec":{"color":"blue"},"status":{"selector":"ignored"}}`, 200, `"selector":"color=blue"`},
	}
	for _, tc := range tests {
		r := do(t, ts, tc.method, tc.path, "application/merge-patch+json", tc.body)
		if r.code != tc.code || !strings.Contains(string(r.body), tc.want) {
			t.Errorf("%s: %d %s\nwant %d holding %s", tc.name, r.code, r.body, tc.code, tc.want)
		}
	}
}
