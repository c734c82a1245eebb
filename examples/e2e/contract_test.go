package e2e

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

// TestWidgetContractWrites makes, on the example server, the writes the
// Widget contract of DESIGN.md allows on spec.size and spec.replicas:
// every field may be set, changed and removed by any write within its
// bounds, so none of them may be refused by the example's CEL rules.
func TestWidgetContractWrites(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	dc, err := dynamic.NewForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	widgets := dc.Resource(widgetsGVR).Namespace("default")
	v1beta1 := dc.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1beta1", Resource: "widgets"}).Namespace("default")
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "contract"},
		"spec":     map[string]any{"color": "red", "size": "L", "replicas": int64(2)},
	}}
	if _, err := widgets.Create(ctx, w, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	size := func(t *testing.T) any {
		t.Helper()
		got, err := widgets.Get(ctx, "contract", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		v, _, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", "size")
		return v
	}
	steps := []struct {
		name  string
		write func() error
		want  any // spec.size afterwards; nil when removed
	}{
		{"merge patch changes size", func() error {
			_, err := widgets.Patch(ctx, "contract", types.MergePatchType, []byte(`{"spec":{"size":"M"}}`), metav1.PatchOptions{})
			return err
		}, "M"},
		{"merge patch removes size", func() error {
			_, err := widgets.Patch(ctx, "contract", types.MergePatchType, []byte(`{"spec":{"size":null}}`), metav1.PatchOptions{})
			return err
		}, nil},
		{"JSON patch adds size", func() error {
			_, err := widgets.Patch(ctx, "contract", types.JSONPatchType, []byte(`[{"op":"add","path":"/spec/size","value":"S"}]`), metav1.PatchOptions{})
			return err
		}, "S"},
		{"JSON patch replaces size", func() error {
			_, err := widgets.Patch(ctx, "contract", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/size","value":"XL"}]`), metav1.PatchOptions{})
			return err
		}, "XL"},
		{"dry run changes size and stores nothing", func() error {
			_, err := widgets.Patch(ctx, "contract", types.MergePatchType, []byte(`{"spec":{"size":"XS"}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		}, "XL"},
		{"JSON patch removes size", func() error {
			_, err := widgets.Patch(ctx, "contract", types.JSONPatchType, []byte(`[{"op":"remove","path":"/spec/size"}]`), metav1.PatchOptions{})
			return err
		}, nil},
		{"merge patch through v1beta1 sets size", func() error {
			_, err := v1beta1.Patch(ctx, "contract", types.MergePatchType, []byte(`{"spec":{"size":"M"}}`), metav1.PatchOptions{})
			return err
		}, "M"},
		{"replicas 0 with a color", func() error {
			_, err := widgets.Patch(ctx, "contract", types.MergePatchType, []byte(`{"spec":{"replicas":0,"color":"blue"}}`), metav1.PatchOptions{})
			return err
		}, "M"},
		{"apply sets size", func() error {
			_, err := widgets.Patch(ctx, "contract", types.ApplyPatchType,
				[]byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"contract"},"spec":{"size":"S"}}`),
				metav1.PatchOptions{FieldManager: "contract-apply", Force: ptr.To(true)})
			return err
		}, "S"},
		{"apply without size removes it", func() error {
			_, err := widgets.Patch(ctx, "contract", types.ApplyPatchType,
				[]byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"contract"},"spec":{"color":"green"}}`),
				metav1.PatchOptions{FieldManager: "contract-apply", Force: ptr.To(true)})
			return err
		}, nil},
	}
	for _, s := range steps {
		if err := s.write(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := size(t); got != s.want {
			t.Fatalf("%s: spec.size is %v, want %v", s.name, got, s.want)
		}
	}

	// controller-runtime's optimistic-lock merge patch and its apply.
	cr := newDirectClient(t, crConfig(ts.URL), newCRSchemeT(t))
	var cw crWidget
	if err := cr.Get(ctx, client.ObjectKey{Namespace: "default", Name: "contract"}, &cw); err != nil {
		t.Fatal(err)
	}
	base := cw.DeepCopy()
	cw.Spec.Size = "XXL"
	if err := cr.Patch(ctx, &cw, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		t.Fatalf("controller-runtime optimistic-lock merge patch: %v", err)
	}
	if got := size(t); got != "XXL" {
		t.Fatalf("after controller-runtime's merge patch spec.size is %v", got)
	}
	applied := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "contract", "namespace": "default"},
		"spec":     map[string]any{"size": "XS"},
	}}
	if err := cr.Patch(ctx, applied, client.Apply, client.FieldOwner("contract-cr"), client.ForceOwnership); err != nil {
		t.Fatalf("controller-runtime apply: %v", err)
	}
	if got := size(t); got != "XS" {
		t.Fatalf("after controller-runtime's apply spec.size is %v", got)
	}

	// kubectl patch.
	k := kubectltest.New(t, ts.URL)
	if out := kubectl(t, k, "", "patch", "widget", "contract", "--type", "merge", "-p", `{"spec":{"size":"L"}}`); !strings.Contains(out, "patched") {
		t.Errorf("kubectl patch: %q", out)
	}
	if got := size(t); got != "L" {
		t.Fatalf("after kubectl patch spec.size is %v", got)
	}
}
