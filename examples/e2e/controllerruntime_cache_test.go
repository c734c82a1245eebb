package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// TestControllerRuntimeSelectedCache restricts the manager's Widget cache
// to one namespace and by a label and a field selector, which the informer
// sends on its list
// and watch: objects entering the selection appear in the cache and
// objects leaving it (a label or field changed) disappear from it, as the
// server sends them as added and deleted on the filtered watch.
func TestControllerRuntimeSelectedCache(t *testing.T) {
	ts := startCRServer(t)
	cfg, scheme := crConfig(ts.URL), newCRSchemeT(t)
	direct := newDirectClient(t, cfg, scheme)
	ctx := context.Background()
	tier := map[string]string{"tier": "front"}
	elsewhere := newCRWidget("elsewhere", 1, "red", tier)
	elsewhere.Namespace = "other"
	for _, w := range []*crWidget{
		newCRWidget("in", 1, "red", tier),
		newCRWidget("blue", 1, "blue", tier),
		newCRWidget("back", 1, "red", map[string]string{"tier": "back"}),
		elsewhere,
	} {
		if err := direct.Create(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	mgr := newCRManager(t, cfg, scheme, func(o *manager.Options) {
		o.Cache.DefaultNamespaces = map[string]cache.Config{"default": {}}
		o.Cache.ByObject = map[client.Object]cache.ByObject{&crWidget{}: {
			Label: labels.SelectorFromSet(tier),
			Field: fields.OneTermEqualSelector("spec.color", "red"),
		}}
	})
	runManager(t, mgr)
	cached := mgr.GetClient()
	inCache := func(want ...string) func() (bool, string) {
		return func() (bool, string) {
			var l crWidgetList
			if err := cached.List(ctx, &l); err != nil {
				return false, err.Error()
			}
			got := widgetNames(&l)
			return slices.Equal(got, want), fmt.Sprintf("cache holds %v, want %v", got, want)
		}
	}
	eventually(t, 10*time.Second, inCache("in"))

	update := func(name string, change func(*crWidget)) {
		t.Helper()
		w, err := serverWidget(direct, name)
		if err != nil {
			t.Fatal(err)
		}
		change(w)
		if err := direct.Update(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	update("blue", func(w *crWidget) { w.Spec.Color = "red" })
	eventually(t, 10*time.Second, inCache("blue", "in"))
	update("in", func(w *crWidget) { w.Spec.Color = "green" })
	eventually(t, 10*time.Second, inCache("blue"))
	update("back", func(w *crWidget) { w.Labels["tier"] = "front" })
	eventually(t, 10*time.Second, inCache("back", "blue"))
	update("blue", func(w *crWidget) { w.Labels = nil })
	eventually(t, 10*time.Second, inCache("back"))
}

// TestControllerRuntimeWatch watches Widgets with a label selector through
// client.WithWatch: typed events, updates and deletes of the selection.
func TestControllerRuntimeWatch(t *testing.T) {
	ts := startCRServer(t)
	cfg, scheme := crConfig(ts.URL), newCRSchemeT(t)
	wc, err := client.NewWithWatch(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := wc.Create(ctx, newCRWidget("before", 1, "red", map[string]string{"watch": "yes"})); err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(ctx, &crWidgetList{}, client.InNamespace("default"), client.MatchingLabels{"watch": "yes"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := wc.Create(ctx, newCRWidget("ignored", 1, "red", nil)); err != nil {
		t.Fatal(err)
	}
	after := newCRWidget("after", 1, "red", map[string]string{"watch": "yes"})
	if err := wc.Create(ctx, after); err != nil {
		t.Fatal(err)
	}
	if err := wc.Delete(ctx, after); err != nil {
		t.Fatal(err)
	}
	var got []string
	want := []string{"ADDED before", "ADDED after", "DELETED after"}
	for len(got) < len(want) {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %v", got)
			}
			obj, isWidget := ev.Object.(*crWidget)
			if !isWidget {
				t.Fatalf("event %s with %T", ev.Type, ev.Object)
			}
			got = append(got, string(ev.Type)+" "+obj.Name)
		case <-ctx.Done():
			t.Fatalf("events %v, want %v", got, want)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}
