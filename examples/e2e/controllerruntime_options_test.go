package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/kapi-dev/kapi/examples/widgets/api"
)

// TestControllerRuntimeUnstructuredPatches patches a kind without a Go type
// (Sprocket, served as unstructured from an OpenAPI schema) through the
// unstructured client: merge patches work, strategic merge patches are 415
// as they are for custom resources.
func TestControllerRuntimeUnstructuredPatches(t *testing.T) {
	sprocket, err := api.SprocketKind()
	if err != nil {
		t.Fatal(err)
	}
	ts := startCRServer(t, sprocket)
	c := newDirectClient(t, crConfig(ts.URL), newCRSchemeT(t))
	ctx := context.Background()
	u := newSprocket("s", map[string]any{"teeth": int64(10), "label": "main"})
	u.SetNamespace("default")
	if err := c.Create(ctx, u); err != nil {
		t.Fatal(err)
	}
	if err := c.Patch(ctx, u, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"teeth":11}}`))); err != nil {
		t.Fatal(err)
	}
	if teeth, _, _ := unstructured.NestedInt64(u.Object, "spec", "teeth"); teeth != 11 {
		t.Errorf("teeth after merge patch: %v", u.Object["spec"])
	}
	err = c.Patch(ctx, u, client.RawPatch(types.StrategicMergePatchType, []byte(`{"spec":{"teeth":12}}`)))
	if errCode(err) != http.StatusUnsupportedMediaType || !apierrors.IsUnsupportedMediaType(err) {
		t.Errorf("strategic merge patch: code %d, %v", errCode(err), err)
	}
}

// TestControllerRuntimeReadYourWrites turns on the cached client's
// read-your-writes mode, which waits for the cache to reach the
// resourceVersion a write returned: every read right after a write through
// the cache sees it.
func TestControllerRuntimeReadYourWrites(t *testing.T) {
	ts := startCRServer(t)
	cfg, scheme := crConfig(ts.URL), newCRSchemeT(t)
	mgr := newCRManager(t, cfg, scheme, func(o *manager.Options) {
		o.Client.Cache = &client.CacheOptions{EnableReadYourWritesConsistency: ptr.To(true)}
	})
	runManager(t, mgr)
	c := mgr.GetClient()
	ctx := context.Background()
	live := 0 // Widgets on the server: the ones with a finalizer stay
	for i := range 10 {
		live++
		name := fmt.Sprintf("ryw-%d", i)
		w := newCRWidget(name, 1, "red", nil)
		if i%2 == 1 {
			w.Finalizers = []string{widgetFinalizer}
		}
		if err := c.Create(ctx, w); err != nil {
			t.Fatal(err)
		}
		var got crWidget
		if err := c.Get(ctx, client.ObjectKeyFromObject(w), &got); err != nil {
			t.Fatalf("get after create: %v", err)
		}
		w.Spec.Size = "big"
		if err := c.Update(ctx, w); err != nil {
			t.Fatal(err)
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(w), &got); err != nil || got.Spec.Size != "big" {
			t.Fatalf("get after update: %+v, %v", got.Spec, err)
		}
		var l crWidgetList
		if err := c.List(ctx, &l, client.InNamespace("default")); err != nil || len(l.Items) != live {
			t.Fatalf("list after update: %d items, %v", len(l.Items), err)
		}
		if err := c.Delete(ctx, w); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			live--
		}
		err := c.Get(ctx, client.ObjectKeyFromObject(w), &got)
		switch {
		case i%2 == 0 && !apierrors.IsNotFound(err):
			t.Fatalf("get after delete: %v", err)
		case i%2 == 1 && (err != nil || got.DeletionTimestamp.IsZero()):
			t.Fatalf("get after delete with a finalizer: %v, %v", got.DeletionTimestamp, err)
		}
	}
}

// TestControllerRuntimeDryRunAndValidation checks the per-call options a
// controller passes as query parameters: dry run stores nothing, strict
// field validation refuses an unknown field, and invalid values are 422.
func TestControllerRuntimeDryRunAndValidation(t *testing.T) {
	ts := startCRServer(t)
	c := newDirectClient(t, crConfig(ts.URL), newCRSchemeT(t))
	ctx := context.Background()

	w := newCRWidget("dry", 1, "red", nil)
	if err := c.Create(ctx, w, client.DryRunAll); err != nil {
		t.Fatal(err)
	}
	if w.UID == "" {
		t.Errorf("dry-run create returned no uid: %+v", w.ObjectMeta)
	}
	if _, err := serverWidget(c, "dry"); !apierrors.IsNotFound(err) {
		t.Errorf("dry-run create stored the Widget: %v", err)
	}

	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "strict", "namespace": "default"},
		"spec":     map[string]any{"color": "red", "bogus": true},
	}}
	strict := client.WithFieldValidation(c, metav1.FieldValidationStrict)
	err := strict.Create(ctx, u)
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `unknown field "spec.bogus"`) {
		t.Errorf("strict create with an unknown field: %v", err)
	}

	err = c.Create(ctx, newCRWidget("bad", 2000, "Red", nil))
	if !apierrors.IsInvalid(err) {
		t.Fatalf("invalid create: %v", err)
	}
	fields := map[string]bool{}
	for _, cause := range err.(apierrors.APIStatus).Status().Details.Causes {
		fields[cause.Field] = true
	}
	if !fields["spec.replicas"] || !fields["spec.color"] {
		t.Errorf("causes: %v", err.(apierrors.APIStatus).Status().Details.Causes)
	}
}
