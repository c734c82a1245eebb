package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

func newCRWidget(name string, replicas int32, color string, labels map[string]string) *crWidget {
	return &crWidget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: labels},
		Spec:       crWidgetSpec{Replicas: ptr.To(replicas), Color: color},
	}
}

// serverWidget reads a Widget past any cache.
func serverWidget(c client.Client, name string) (*crWidget, error) {
	var w crWidget
	err := c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: name}, &w)
	return &w, err
}

// TestControllerRuntimeReconciler runs a manager without leader election
// and a Widget controller: status follows spec through the status
// subresource, the finalizer is added, and a deleted Widget is finalized
// and gone.
//
// With GenerationChangedPredicate the controller sees only creates, spec
// changes and deletes: it relies on the server bumping metadata.generation
// when it marks an object with finalizers as deleting, as kube-apiserver
// does; without that the deletion never reaches it and the Widget stays.
func TestControllerRuntimeReconciler(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []builder.ForOption
	}{
		{"all events", nil},
		{"generation changes", []builder.ForOption{builder.WithPredicates(predicate.GenerationChangedPredicate{})}},
	} {
		t.Run(tc.name, func(t *testing.T) { testReconciler(t, tc.opts...) })
	}
}

func testReconciler(t *testing.T, opts ...builder.ForOption) {
	ts := startCRServer(t)
	cfg, scheme := crConfig(ts.URL), newCRSchemeT(t)
	mgr := newCRManager(t, cfg, scheme, nil)
	r := &widgetReconciler{client: mgr.GetClient()}
	name := fmt.Sprintf("widgets-basic-%d", len(opts))
	if err := ctrl.NewControllerManagedBy(mgr).Named(name).For(&crWidget{}, opts...).Complete(r); err != nil {
		t.Fatal(err)
	}
	runManager(t, mgr)
	direct := newDirectClient(t, cfg, scheme)
	ctx := context.Background()

	if err := direct.Create(ctx, newCRWidget("w1", 3, "red", nil)); err != nil {
		t.Fatal(err)
	}
	settled := func(replicas int32) func() (bool, string) {
		return func() (bool, string) {
			w, err := serverWidget(direct, "w1")
			if err != nil {
				return false, err.Error()
			}
			ok := w.Status.ReadyReplicas == replicas && w.Status.ObservedGeneration == w.Generation &&
				slices.Contains(w.Finalizers, widgetFinalizer)
			return ok, fmt.Sprintf("generation %d, status %+v, finalizers %v", w.Generation, w.Status, w.Finalizers)
		}
	}
	eventually(t, 10*time.Second, settled(3))

	w, err := serverWidget(direct, "w1")
	if err != nil {
		t.Fatal(err)
	}
	gen := w.Generation
	w.Spec.Replicas = ptr.To[int32](5)
	if err := direct.Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, settled(5))
	if w, _ := serverWidget(direct, "w1"); w.Generation != gen+1 {
		t.Errorf("generation %d after a spec change, want %d", w.Generation, gen+1)
	}

	if err := direct.Delete(ctx, w); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, func() (bool, string) {
		_, err := serverWidget(direct, "w1")
		return apierrors.IsNotFound(err), fmt.Sprintf("get after delete: %v", err)
	})
	// The object can be gone a moment before the reconciler counts it.
	eventually(t, 5*time.Second, func() (bool, string) {
		n := r.finalized.Load()
		return n == 1, fmt.Sprintf("finalized %d times, want 1", n)
	})
	if n := r.statuses.Load(); n < 2 {
		t.Errorf("%d status updates, want at least 2", n)
	}
	t.Logf("reconciles: %d", r.reconciles.Load())
}
