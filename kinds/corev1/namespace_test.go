package corev1_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/kinds/corev1"
)

func TestValidateNamespace(t *testing.T) {
	k := corev1.NamespaceKind()
	ns := func(name string, finalizers ...string) *corev1.Namespace {
		n := &corev1.Namespace{Spec: corev1.NamespaceSpec{Finalizers: finalizers}}
		n.Name = name
		return n
	}
	cases := []struct {
		name string
		obj  *corev1.Namespace
		want string
	}{
		{"valid", ns("team-a", "kubernetes", "example.com/cleanup"), ""},
		{"not a label", ns("Team.A"), "metadata.name"},
		{"bad finalizer", ns("a", "not valid"), "spec.finalizers[0]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := fields(k.Validate(context.Background(), c.obj, nil)); got != c.want {
				t.Errorf("errors on %q, want %q", got, c.want)
			}
		})
	}
}

// TestNamespaceNameLabel: every write of a Namespace carries the
// kubernetes.io/metadata.name label with its name, as kube's defaulting
// puts it.
func TestNamespaceNameLabel(t *testing.T) {
	k := corev1.NamespaceKind()
	for _, c := range []struct {
		labels map[string]string
		want   map[string]string
	}{
		{nil, map[string]string{corev1.LabelMetadataName: "ns1"}},
		{map[string]string{"a": "b", corev1.LabelMetadataName: "other"}, map[string]string{"a": "b", corev1.LabelMetadataName: "ns1"}},
	} {
		n := &corev1.Namespace{}
		n.Name, n.Labels = "ns1", c.labels
		k.Default(context.Background(), n)
		if d := cmp.Diff(c.want, n.Labels); d != "" {
			t.Errorf("labels of %v (-want +got):\n%s", c.labels, d)
		}
	}
}

func TestNamespacePrepare(t *testing.T) {
	k := corev1.NamespaceKind()
	n := &corev1.Namespace{Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}}
	k.PrepareForCreate(n)
	if n.Status.Phase != corev1.NamespaceActive || len(n.Spec.Finalizers) != 1 || n.Spec.Finalizers[0] != "kubernetes" {
		t.Errorf("created as %+v", n)
	}
	old := &corev1.Namespace{Spec: corev1.NamespaceSpec{Finalizers: []string{"kubernetes"}}}
	upd := &corev1.Namespace{}
	k.PrepareForUpdate(upd, old)
	if len(upd.Spec.Finalizers) != 1 {
		t.Errorf("an update dropped spec.finalizers: %+v", upd)
	}
	k.Finalize(old, &corev1.Namespace{})
	if len(old.Spec.Finalizers) != 0 || !k.Deletion.Pending(upd) || k.Deletion.Pending(old) {
		t.Errorf("finalize left %v", old.Spec.Finalizers)
	}
	if get, ok := k.SelectableFields["status.phase"]; !ok || get(n) != "Active" {
		t.Errorf("status.phase is not selectable as Active")
	}
}
