package e2e

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func widgetMetadata() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(widgetGV.WithKind("Widget"))
	return m
}

// labelCopier watches only Widgets' metadata and copies the label "tier"
// into the annotation "seen-tier" with a metadata patch.
type labelCopier struct {
	client     client.Client
	reconciles atomic.Int64
}

func (r *labelCopier) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.reconciles.Add(1)
	m := widgetMetadata()
	if err := r.client.Get(ctx, req.NamespacedName, m); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	tier := m.Labels["tier"]
	if m.Annotations["seen-tier"] == tier {
		return reconcile.Result{}, nil
	}
	before := m.DeepCopy()
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations["seen-tier"] = tier
	return reconcile.Result{}, r.client.Patch(ctx, m, client.MergeFrom(before))
}

// TestControllerRuntimeMetadataOnly runs a controller over the metadata of
// Widgets (PartialObjectMetadata lists and watches) and reads and patches
// metadata through the manager's client.
func TestControllerRuntimeMetadataOnly(t *testing.T) {
	ts := startCRServer(t)
	cfg, scheme := crConfig(ts.URL), newCRSchemeT(t)
	direct := newDirectClient(t, cfg, scheme)
	ctx := context.Background()
	if err := direct.Create(ctx, newCRWidget("m1", 1, "red", map[string]string{"tier": "front"})); err != nil {
		t.Fatal(err)
	}
	mgr := newCRManager(t, cfg, scheme, nil)
	r := &labelCopier{client: mgr.GetClient()}
	if err := ctrl.NewControllerManagedBy(mgr).Named("widgets-metadata").
		For(&crWidget{}, builder.OnlyMetadata).Complete(r); err != nil {
		t.Fatal(err)
	}
	runManager(t, mgr)

	seen := func(name, tier string) func() (bool, string) {
		return func() (bool, string) {
			w, err := serverWidget(direct, name)
			if err != nil {
				return false, err.Error()
			}
			return w.Annotations["seen-tier"] == tier, fmt.Sprintf("annotations %v", w.Annotations)
		}
	}
	eventually(t, 10*time.Second, seen("m1", "front"))
	if err := direct.Create(ctx, newCRWidget("m2", 1, "blue", map[string]string{"tier": "back"})); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, seen("m2", "back"))
	w, err := serverWidget(direct, "m1")
	if err != nil {
		t.Fatal(err)
	}
	w.Labels["tier"] = "middle"
	if err := direct.Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, seen("m1", "middle"))

	// The cache holds metadata, not whole Widgets: a list of it has the
	// names and labels and no spec to lose.
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(widgetGV.WithKind("WidgetList"))
	if err := mgr.GetClient().List(ctx, list, client.InNamespace("default"), client.MatchingLabels{"tier": "back"}); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "m2" || list.Items[0].UID == "" {
		t.Errorf("metadata list: %+v", list.Items)
	}
	// A direct metadata read goes to the server as a PartialObjectMetadata.
	m := widgetMetadata()
	if err := direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: "m2"}, m); err != nil {
		t.Fatal(err)
	}
	if m.Labels["tier"] != "back" || m.Generation != 1 {
		t.Errorf("direct metadata get: %+v", m.ObjectMeta)
	}
	if n := r.reconciles.Load(); n < 3 {
		t.Errorf("%d reconciles, want at least 3", n)
	}
}

// TestControllerRuntimeCreateOrUpdate runs controllerutil.CreateOrUpdate
// and CreateOrPatch through their outcomes.
func TestControllerRuntimeCreateOrUpdate(t *testing.T) {
	ts := startCRServer(t)
	cfg, scheme := crConfig(ts.URL), newCRSchemeT(t)
	c := newDirectClient(t, cfg, scheme)
	ctx := context.Background()

	replicas := int32(2)
	mutate := func(w *crWidget) controllerutil.MutateFn {
		return func() error {
			w.Spec.Replicas = ptr.To(replicas)
			w.Spec.Color = "red"
			return nil
		}
	}
	for _, tc := range []struct {
		name     string
		replicas int32
		want     controllerutil.OperationResult
	}{
		{"create", 2, controllerutil.OperationResultCreated},
		{"same", 2, controllerutil.OperationResultNone},
		{"change", 3, controllerutil.OperationResultUpdated},
	} {
		replicas = tc.replicas
		w := &crWidget{ObjectMeta: metav1.ObjectMeta{Name: "cou", Namespace: "default"}}
		got, err := controllerutil.CreateOrUpdate(ctx, c, w, mutate(w))
		if err != nil || got != tc.want {
			t.Errorf("CreateOrUpdate %s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if w, err := serverWidget(c, "cou"); err != nil || ptr.Deref(w.Spec.Replicas, 0) != 3 {
		t.Errorf("after CreateOrUpdate: %v, %v", w, err)
	}

	for _, tc := range []struct {
		name     string
		replicas int32
		ready    int32
		want     controllerutil.OperationResult
	}{
		{"create", 2, 0, controllerutil.OperationResultCreated},
		{"same", 2, 0, controllerutil.OperationResultNone},
		{"spec", 4, 0, controllerutil.OperationResultUpdated},
		{"status only", 4, 4, controllerutil.OperationResultUpdatedStatusOnly},
		{"both", 5, 5, controllerutil.OperationResultUpdatedStatus},
	} {
		w := &crWidget{ObjectMeta: metav1.ObjectMeta{Name: "cop", Namespace: "default"}}
		got, err := controllerutil.CreateOrPatch(ctx, c, w, func() error {
			w.Spec.Replicas = ptr.To(tc.replicas)
			w.Status.ReadyReplicas = tc.ready
			return nil
		})
		if err != nil || got != tc.want {
			t.Errorf("CreateOrPatch %s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	w, err := serverWidget(c, "cop")
	if err != nil || ptr.Deref(w.Spec.Replicas, 0) != 5 || w.Status.ReadyReplicas != 5 {
		t.Errorf("after CreateOrPatch: %+v, %v", w, err)
	}
}
