package e2e

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

// getWidget reads a Widget with kubectl -o yaml, managedFields included.
func getWidget(t *testing.T, k *kubectltest.Kubectl, name string) *unstructured.Unstructured {
	t.Helper()
	out := kubectl(t, k, "", "get", "wd", name, "-o", "yaml", "--show-managed-fields")
	j, err := yaml.YAMLToJSON([]byte(out))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(j); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return u
}

// managerSummary lists managedFields entries as manager/operation.
func managerSummary(u *unstructured.Unstructured) string {
	var parts []string
	for _, e := range u.GetManagedFields() {
		s := e.Manager + "/" + string(e.Operation)
		if e.Subresource != "" {
			s += "/" + e.Subresource
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ",")
}

func TestKubectlServerSideApply(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)

	out := kubectl(t, k, widgetManifest("ssa", "red"), "apply", "--server-side", "-f", "-")
	if !strings.Contains(out, "widget.stable.example.com/ssa serverside-applied") {
		t.Errorf("create: %s", out)
	}
	created := getWidget(t, k, "ssa")
	if created.GetGeneration() != 1 || managerSummary(created) != "kubectl/Apply" {
		t.Errorf("created: generation %d, managedFields %s", created.GetGeneration(), managerSummary(created))
	}

	kubectl(t, k, widgetManifest("ssa", "blue"), "apply", "--server-side", "-f", "-")
	changed := getWidget(t, k, "ssa")
	if c, _, _ := unstructured.NestedString(changed.Object, "spec", "color"); c != "blue" || changed.GetGeneration() != 2 {
		t.Errorf("changed: color %q generation %d", c, changed.GetGeneration())
	}

	out = kubectl(t, k, widgetManifest("ssa", "blue"), "apply", "--server-side", "-f", "-")
	if !strings.Contains(out, "serverside-applied") {
		t.Errorf("unchanged: %s", out)
	}
	if same := getWidget(t, k, "ssa"); same.GetResourceVersion() != changed.GetResourceVersion() {
		t.Errorf("unchanged apply wrote: rv %s → %s", changed.GetResourceVersion(), same.GetResourceVersion())
	}

	// Another manager setting the same field conflicts, until it forces.
	errOut := kubectlFails(t, k, widgetManifest("ssa", "green"), "apply", "--server-side", "--field-manager=other", "-f", "-")
	if !strings.Contains(errOut, `Apply failed with 1 conflict: conflict with "kubectl": .spec.color`) {
		t.Errorf("conflict: %s", errOut)
	}
	kubectl(t, k, widgetManifest("ssa", "green"), "apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", "-")
	forced := getWidget(t, k, "ssa")
	if c, _, _ := unstructured.NestedString(forced.Object, "spec", "color"); c != "green" || managerSummary(forced) != "kubectl/Apply,other/Apply" {
		t.Errorf("forced: color %q, managedFields %s", c, managerSummary(forced))
	}
	for _, e := range forced.GetManagedFields() {
		owns := strings.Contains(string(e.FieldsV1.Raw), `"f:color"`)
		if owns != (e.Manager == "other") {
			t.Errorf("%s owns color: %v (%s)", e.Manager, owns, e.FieldsV1.Raw)
		}
	}

	yml := kubectl(t, k, "", "get", "wd", "ssa", "-o", "yaml", "--show-managed-fields")
	for _, want := range []string{"managedFields:", "manager: other", "operation: Apply", "fieldsType: FieldsV1", "f:color: {}"} {
		if !strings.Contains(yml, want) {
			t.Errorf("--show-managed-fields lacks %q:\n%s", want, yml)
		}
	}
	if yml := kubectl(t, k, "", "get", "wd", "ssa", "-o", "yaml"); strings.Contains(yml, "managedFields") {
		t.Errorf("managedFields shown by default:\n%s", yml)
	}
}

func TestKubectlPatch(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)
	kubectl(t, k, widgetManifest("p", "red"), "create", "-f", "-")
	tests := []struct {
		typ, patch, want string
	}{
		{"json", `[{"op":"replace","path":"/spec/color","value":"blue"}]`, "blue 80"},
		{"merge", `{"spec":{"color":"green"}}`, "green 80"},
		{"strategic", `{"spec":{"ports":[{"name":"http","port":8080}]}}`, "green 8080"},
		// New items go first, as kube-apiserver orders them.
		{"strategic", `{"spec":{"ports":[{"name":"https","port":443}]}}`, "green 443 8080"},
		{"strategic", `{"spec":{"ports":[{"name":"http","$patch":"delete"}]}}`, "green 443"},
	}
	for _, tc := range tests {
		out := kubectl(t, k, "", "patch", "wd", "p", "--type="+tc.typ, "-p", tc.patch)
		if !strings.Contains(out, "widget.stable.example.com/p patched") {
			t.Errorf("%s %s: %s", tc.typ, tc.patch, out)
		}
		got := kubectl(t, k, "", "get", "wd", "p", "-o", "jsonpath={.spec.color} {.spec.ports[*].port}")
		if got != tc.want {
			t.Errorf("%s %s: got %q, want %q", tc.typ, tc.patch, got, tc.want)
		}
	}
	w := getWidget(t, k, "p")
	if s := managerSummary(w); s != "kubectl-create/Update,kubectl-patch/Update" {
		t.Errorf("managedFields: %s", s)
	}
	errOut := kubectlFails(t, k, "", "patch", "wd", "p", "--type=json", "-p", `[{"op":"test","path":"/spec/color","value":"red"}]`)
	if !strings.Contains(errOut, "the server rejected our request due to an error in our request") {
		t.Errorf("failing test op: %s", errOut)
	}
}

func TestClientGoApply(t *testing.T) {
	ts := startServer(t)
	dyn, err := dynamic.NewForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	widgets := dyn.Resource(widgetsGVR).Namespace("default")

	cfg := newWidget("applied", "red")
	created, err := widgets.Apply(ctx, "applied", cfg, metav1.ApplyOptions{FieldManager: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	if created.GetUID() == "" || created.GetGeneration() != 1 {
		t.Errorf("created: %v", created.Object["metadata"])
	}
	if mf := created.GetManagedFields(); len(mf) != 1 || mf[0].Manager != "e2e" || mf[0].Operation != metav1.ManagedFieldsOperationApply {
		t.Errorf("managedFields: %+v", mf)
	}

	_ = unstructured.SetNestedField(cfg.Object, "blue", "spec", "color")
	updated, err := widgets.Apply(ctx, "applied", cfg, metav1.ApplyOptions{FieldManager: "e2e"})
	if err != nil {
		t.Fatal(err)
	}
	if c, _, _ := unstructured.NestedString(updated.Object, "spec", "color"); c != "blue" || updated.GetGeneration() != 2 {
		t.Errorf("updated: %v", updated.Object)
	}
	again, err := widgets.Apply(ctx, "applied", cfg, metav1.ApplyOptions{FieldManager: "e2e"})
	if err != nil || again.GetResourceVersion() != updated.GetResourceVersion() {
		t.Errorf("unchanged apply: %v, rv %s → %s", err, updated.GetResourceVersion(), again.GetResourceVersion())
	}

	_ = unstructured.SetNestedField(cfg.Object, "green", "spec", "color")
	_, err = widgets.Apply(ctx, "applied", cfg, metav1.ApplyOptions{FieldManager: "rival"})
	if !errors.IsConflict(err) {
		t.Fatalf("rival apply: %v", err)
	}
	if causes, ok := errors.StatusCause(err, metav1.CauseTypeFieldManagerConflict); !ok || causes.Field != ".spec.color" {
		t.Errorf("conflict cause: %+v (%v)", causes, err)
	}
	forced, err := widgets.Apply(ctx, "applied", cfg, metav1.ApplyOptions{FieldManager: "rival", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if c, _, _ := unstructured.NestedString(forced.Object, "spec", "color"); c != "green" {
		t.Errorf("forced: %v", forced.Object["spec"])
	}

	status := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "applied"},
		"status":   map[string]any{"readyReplicas": int64(1)},
	}}
	st, err := widgets.ApplyStatus(ctx, "applied", status, metav1.ApplyOptions{FieldManager: "controller"})
	if err != nil {
		t.Fatal(err)
	}
	if rr, _, _ := unstructured.NestedInt64(st.Object, "status", "readyReplicas"); rr != 1 {
		t.Errorf("status: %v", st.Object["status"])
	}
	var sawStatus bool
	for _, e := range st.GetManagedFields() {
		if e.Manager == "controller" && e.Subresource == "status" && e.Operation == metav1.ManagedFieldsOperationApply {
			sawStatus = true
		}
	}
	if !sawStatus {
		t.Errorf("no status entry: %+v", st.GetManagedFields())
	}
}
