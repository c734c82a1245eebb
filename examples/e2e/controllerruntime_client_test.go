package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// widgetNames lists the names in a Widget list, sorted.
func widgetNames(l *crWidgetList) []string {
	var names []string
	for _, w := range l.Items {
		names = append(names, w.Name)
	}
	slices.Sort(names)
	return names
}

// TestControllerRuntimeClientReads lists and gets Widgets through the
// direct client and through the manager's cache, by label and by field.
func TestControllerRuntimeClientReads(t *testing.T) {
	ts := startCRServer(t)
	cfg, scheme := crConfig(ts.URL), newCRSchemeT(t)
	direct := newDirectClient(t, cfg, scheme)
	ctx := context.Background()
	for _, w := range []*crWidget{
		newCRWidget("a", 1, "red", map[string]string{"tier": "front"}),
		newCRWidget("b", 2, "blue", map[string]string{"tier": "front"}),
		newCRWidget("c", 3, "red", map[string]string{"tier": "back"}),
	} {
		if err := direct.Create(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	mgr := newCRManager(t, cfg, scheme, nil)
	// The cache answers field selectors from indexes the user declares.
	if err := mgr.GetFieldIndexer().IndexField(ctx, &crWidget{}, "spec.color", func(o client.Object) []string {
		return []string{o.(*crWidget).Spec.Color}
	}); err != nil {
		t.Fatal(err)
	}
	runManager(t, mgr)
	cached := mgr.GetClient()

	for _, c := range []struct {
		name   string
		client client.Client
	}{{"direct", direct}, {"cached", cached}} {
		for _, tc := range []struct {
			name string
			opts []client.ListOption
			want []string
		}{
			{"all", []client.ListOption{client.InNamespace("default")}, []string{"a", "b", "c"}},
			{"label", []client.ListOption{client.InNamespace("default"), client.MatchingLabels{"tier": "front"}}, []string{"a", "b"}},
			{"field", []client.ListOption{client.InNamespace("default"), client.MatchingFields{"spec.color": "red"}}, []string{"a", "c"}},
			{"both", []client.ListOption{client.MatchingLabels{"tier": "front"}, client.MatchingFields{"spec.color": "red"}}, []string{"a"}},
			{"other namespace", []client.ListOption{client.InNamespace("elsewhere")}, nil},
		} {
			t.Run(c.name+"/"+tc.name, func(t *testing.T) {
				var l crWidgetList
				if err := c.client.List(ctx, &l, tc.opts...); err != nil {
					t.Fatal(err)
				}
				if got := widgetNames(&l); !slices.Equal(got, tc.want) {
					t.Errorf("got %v, want %v", got, tc.want)
				}
			})
		}
		t.Run(c.name+"/get", func(t *testing.T) {
			var w crWidget
			if err := c.client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "b"}, &w); err != nil {
				t.Fatal(err)
			}
			if w.Spec.Color != "blue" || ptr.Deref(w.Spec.Replicas, 0) != 2 || w.UID == "" || w.ResourceVersion == "" {
				t.Errorf("got %+v", w)
			}
			err := c.client.Get(ctx, client.ObjectKey{Namespace: "default", Name: "missing"}, &w)
			if !apierrors.IsNotFound(err) {
				t.Errorf("missing: %v", err)
			}
		})
	}
	// Only the server pages; the cache cuts at the limit but cannot continue.
	t.Run("direct/pages", func(t *testing.T) { testPages(t, direct) })
}

// TestControllerRuntimeClientWrites drives every write verb of the
// controller-runtime client on Widgets.
func TestControllerRuntimeClientWrites(t *testing.T) {
	ts := startCRServer(t)
	cfg, scheme := crConfig(ts.URL), newCRSchemeT(t)
	c := newDirectClient(t, cfg, scheme)
	ctx := context.Background()

	w := newCRWidget("w", 1, "red", map[string]string{"app": "x"})
	if err := c.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	if w.UID == "" || w.Generation != 1 || w.Kind != "" {
		// The typed client fills the object from the response and clears
		// the TypeMeta, as it does against kube-apiserver.
		t.Errorf("after create: %+v", w.ObjectMeta)
	}
	if err := c.Create(ctx, newCRWidget("w", 1, "red", nil)); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second create: %v", err)
	}
	gen := &crWidget{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-", Namespace: "default"}}
	if err := c.Create(ctx, gen); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(gen.Name, "gen-") || len(gen.Name) != len("gen-")+5 {
		t.Errorf("generated name %q", gen.Name)
	}
	if err := c.Delete(ctx, gen, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}

	w.Spec.Size = "large"
	if err := c.Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	stale := w.DeepCopy()
	stale.ResourceVersion = "1"
	if err := c.Update(ctx, stale); !apierrors.IsConflict(err) {
		t.Errorf("stale update: %v", err)
	}

	testPatches(t, c, w)
	testApply(t, c)
	testStatusAndScale(t, c)
	testDeletes(t, c)
}

// testPages lists the three Widgets two at a time.
func testPages(t *testing.T, direct client.Client) {
	ctx := context.Background()
	var names []string
	var l crWidgetList
	opts := []client.ListOption{client.InNamespace("default"), client.Limit(2)}
	for pages := 1; ; pages++ {
		if err := direct.List(ctx, &l, opts...); err != nil {
			t.Fatal(err)
		}
		names = append(names, widgetNames(&l)...)
		if l.Continue == "" {
			if pages != 2 {
				t.Errorf("%d pages of at most 2 for 3 Widgets", pages)
			}
			break
		}
		if ptr.Deref(l.RemainingItemCount, -1) != 1 {
			t.Errorf("remainingItemCount %v on page %d", l.RemainingItemCount, pages)
		}
		opts = []client.ListOption{client.InNamespace("default"), client.Limit(2), client.Continue(l.Continue)}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"a", "b", "c"}) {
		t.Errorf("pages hold %v", names)
	}
}

// testPatches changes w with merge, optimistic-lock merge and strategic
// merge patches, typed and unstructured.
func testPatches(t *testing.T, c client.Client, w *crWidget) {
	ctx := context.Background()
	before := w.DeepCopy()
	w.Spec.Color = "green"
	if err := c.Patch(ctx, w, client.MergeFrom(before)); err != nil {
		t.Fatal(err)
	}
	// Optimistic locking puts the resourceVersion in the merge patch.
	before = w.DeepCopy()
	w.Spec.Tags = []string{"t1"}
	if err := c.Patch(ctx, w, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
		t.Fatal(err)
	}
	before = w.DeepCopy()
	w.Spec.Ports = []crWidgetPort{{Name: "http", Port: 80}}
	if err := c.Patch(ctx, w, client.StrategicMergeFrom(before)); err != nil {
		t.Fatalf("strategic merge patch on a typed kind: %v", err)
	}
	got, err := serverWidget(c, "w")
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Color != "green" || got.Spec.Size != "large" || !slices.Equal(got.Spec.Tags, []string{"t1"}) ||
		len(got.Spec.Ports) != 1 || got.Spec.Ports[0].Protocol != "TCP" {
		t.Errorf("after patches: %+v", got.Spec)
	}

	// Through the unstructured client too: Widget has a Go type on the
	// server, so the server merges the list on its key.
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("stable.example.com/v1")
	u.SetKind("Widget")
	u.SetNamespace("default")
	u.SetName("w")
	smp := client.RawPatch(types.StrategicMergePatchType, []byte(`{"spec":{"ports":[{"name":"https","port":443}]}}`))
	if err := c.Patch(ctx, u, smp); err != nil {
		t.Fatalf("unstructured strategic merge patch: %v", err)
	}
	if ports, _, _ := unstructured.NestedSlice(u.Object, "spec", "ports"); len(ports) != 2 {
		t.Errorf("ports after SMP merge on name: %v", ports)
	}
}

// testApply applies part of a Widget under one field owner and checks the
// owner's fields on the server.
func testApply(t *testing.T, c client.Client) {
	ctx := context.Background()
	ac := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "applied", "namespace": "default"},
		"spec":     map[string]any{"color": "blue", "replicas": int64(4)},
	}}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(ac), client.FieldOwner("cr-applier")); err != nil {
		t.Fatalf("apply create: %v", err)
	}
	ac2 := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "applied", "namespace": "default"},
		"spec":     map[string]any{"color": "pink"},
	}}
	// Another manager taking color conflicts unless it forces.
	err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(ac2), client.FieldOwner("other"))
	if !apierrors.IsConflict(err) {
		t.Errorf("conflicting apply: %v", err)
	}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(ac2), client.FieldOwner("other"), client.ForceOwnership); err != nil {
		t.Fatalf("forced apply: %v", err)
	}
	got, err := serverWidget(c, "applied")
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Color != "pink" || ptr.Deref(got.Spec.Replicas, 0) != 4 {
		t.Errorf("applied spec: %+v", got.Spec)
	}
	// Apply to the status subresource: only status is taken, under its
	// own manager entry for the subresource.
	st := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "applied", "namespace": "default"},
		"spec":     map[string]any{"color": "black"},
		"status":   map[string]any{"readyReplicas": int64(4)},
	}}
	if err := c.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(st), client.FieldOwner("cr-status")); err != nil {
		t.Fatalf("status apply: %v", err)
	}
	got, err = serverWidget(c, "applied")
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Color != "pink" || got.Status.ReadyReplicas != 4 {
		t.Errorf("after status apply: spec %+v status %+v", got.Spec, got.Status)
	}
	managers := map[string]bool{}
	for _, mf := range got.ManagedFields {
		managers[mf.Manager+"/"+string(mf.Operation)+"/"+mf.Subresource] = true
	}
	for _, m := range []string{"cr-applier/Apply/", "other/Apply/", "cr-status/Apply/status"} {
		if !managers[m] {
			t.Errorf("no managedFields entry %s in %v", m, managers)
		}
	}
}

// testStatusAndScale writes the status and scale subresources.
func testStatusAndScale(t *testing.T, c client.Client) {
	ctx := context.Background()
	w, err := serverWidget(c, "w")
	if err != nil {
		t.Fatal(err)
	}
	gen := w.Generation
	w.Status.ReadyReplicas = 1
	w.Status.Selector = "app=x"
	w.Spec.Color = "ignored" // the status subresource keeps the stored spec
	if err := c.Status().Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	before := w.DeepCopy()
	w.Status.ObservedGeneration = gen
	if err := c.Status().Patch(ctx, w, client.MergeFrom(before)); err != nil {
		t.Fatal(err)
	}
	got, err := serverWidget(c, "w")
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Color != "green" || got.Status.ReadyReplicas != 1 || got.Status.ObservedGeneration != gen || got.Generation != gen {
		t.Errorf("after status writes: generation %d spec %+v status %+v", got.Generation, got.Spec, got.Status)
	}

	var scale autoscalingv1.Scale
	if err := c.SubResource("scale").Get(ctx, got, &scale); err != nil {
		t.Fatalf("get scale: %v", err)
	}
	if scale.Spec.Replicas != 1 || scale.Status.Replicas != 1 || scale.Status.Selector != "app=x" {
		t.Errorf("scale: %+v", scale)
	}
	scale.Spec.Replicas = 7
	if err := c.SubResource("scale").Update(ctx, got, client.WithSubResourceBody(&scale)); err != nil {
		t.Fatalf("update scale: %v", err)
	}
	got, err = serverWidget(c, "w")
	if err != nil {
		t.Fatal(err)
	}
	if ptr.Deref(got.Spec.Replicas, 0) != 7 || got.Generation != gen+1 {
		t.Errorf("after scale: generation %d replicas %v", got.Generation, got.Spec.Replicas)
	}
	sp := client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":2}}`))
	if err := c.SubResource("scale").Patch(ctx, got, sp, client.WithSubResourceBody(&scale)); err != nil {
		t.Fatalf("patch scale: %v", err)
	}
	if scale.Spec.Replicas != 2 {
		t.Errorf("patched scale: %+v", scale.Spec)
	}
}

// testDeletes deletes one Widget with a propagation policy and the rest by
// label with DeleteAllOf.
func testDeletes(t *testing.T, c client.Client) {
	ctx := context.Background()
	for i := range 3 {
		if err := c.Create(ctx, newCRWidget(fmt.Sprintf("bulk-%d", i), 1, "red", map[string]string{"bulk": "yes"})); err != nil {
			t.Fatal(err)
		}
	}
	w, err := serverWidget(c, "w")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, w, client.Preconditions{UID: ptr.To(types.UID("wrong"))}); !apierrors.IsConflict(err) {
		t.Errorf("delete with a wrong UID: %v", err)
	}
	if err := c.Delete(ctx, w, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, w); !apierrors.IsNotFound(err) {
		t.Errorf("second delete: %v", err)
	}
	if err := c.DeleteAllOf(ctx, &crWidget{}, client.InNamespace("default"), client.MatchingLabels{"bulk": "yes"},
		client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	var l crWidgetList
	if err := c.List(ctx, &l, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	if got := widgetNames(&l); !slices.Equal(got, []string{"applied"}) {
		t.Errorf("left after deletes: %v", got)
	}
}

// errCode is the HTTP code of a Status error, 0 for others.
func errCode(err error) int32 {
	if s, ok := err.(apierrors.APIStatus); ok {
		return s.Status().Code
	}
	return 0
}
