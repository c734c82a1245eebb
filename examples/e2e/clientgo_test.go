package e2e

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	memcache "k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

var widgetsGVR = schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "widgets"}

func restConfig(url string) *rest.Config {
	return &rest.Config{Host: url, QPS: -1, Timeout: 30 * time.Second}
}

func TestClientGoDiscoveryAndRESTMapper(t *testing.T) {
	ts := startServer(t)
	dc, err := discovery.NewDiscoveryClientForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	groups, resources, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, g := range groups {
		if g.Name == "stable.example.com" && g.PreferredVersion.Version == "v1" {
			found = true
		}
	}
	if !found {
		t.Fatalf("group stable.example.com not discovered: %+v", groups)
	}
	want := map[string]bool{"widgets": false, "widgets/status": false, "gadgets": false}
	for _, rl := range resources {
		for _, r := range rl.APIResources {
			if _, ok := want[r.Name]; ok {
				want[r.Name] = true
			}
			if r.Name == "widgets" && (!r.Namespaced || r.Kind != "Widget" || len(r.ShortNames) != 1 || r.ShortNames[0] != "wd") {
				t.Errorf("widgets resource: %+v", r)
			}
			if r.Name == "gadgets" && r.Namespaced {
				t.Errorf("gadgets is namespaced")
			}
		}
	}
	for name, ok := range want {
		if !ok {
			t.Errorf("resource %s not discovered", name)
		}
	}

	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memcache.NewMemCacheClient(dc))
	for _, tc := range []struct {
		in   schema.GroupVersionResource
		kind string
	}{
		{schema.GroupVersionResource{Resource: "wd"}, "Widget"},
		{schema.GroupVersionResource{Resource: "widget"}, "Widget"},
		{schema.GroupVersionResource{Resource: "gadgets"}, "Gadget"},
	} {
		// Short names go through the shortcut expander, as kubectl does.
		m := restmapper.NewShortcutExpander(mapper, dc, nil)
		gvk, err := m.KindFor(tc.in)
		if err != nil || gvk.Kind != tc.kind || gvk.Group != "stable.example.com" {
			t.Errorf("KindFor(%v) = %v, %v", tc.in, gvk, err)
		}
	}
	mapping, err := mapper.RESTMapping(schema.GroupKind{Group: "stable.example.com", Kind: "Widget"}, "v1")
	if err != nil || mapping.Resource != widgetsGVR || mapping.Scope.Name() != "namespace" {
		t.Errorf("RESTMapping = %+v, %v", mapping, err)
	}
}

func newWidget(name, color string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": name, "labels": map[string]any{"app": "demo"}},
		"spec":     map[string]any{"color": color, "ports": []any{map[string]any{"name": "http", "port": int64(80)}}},
	}}
}

func TestClientGoDynamicCRUD(t *testing.T) {
	ts := startServer(t)
	dyn, err := dynamic.NewForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	widgets := dyn.Resource(widgetsGVR).Namespace("default")

	created, err := widgets.Create(ctx, newWidget("w1", "red"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.GetUID() == "" || created.GetResourceVersion() == "" || created.GetGeneration() != 1 {
		t.Errorf("created: %v", created.Object["metadata"])
	}
	if r, _, _ := unstructured.NestedInt64(created.Object, "spec", "replicas"); r != 1 {
		t.Errorf("replicas not defaulted: %v", created.Object["spec"])
	}
	if p, _, _ := unstructured.NestedSlice(created.Object, "spec", "ports"); len(p) != 1 || p[0].(map[string]any)["protocol"] != "TCP" {
		t.Errorf("protocol not defaulted: %v", created.Object["spec"])
	}
	if _, err := widgets.Create(ctx, newWidget("w1", "red"), metav1.CreateOptions{}); !errors.IsAlreadyExists(err) {
		t.Errorf("second create: %v", err)
	}

	got, err := widgets.Get(ctx, "w1", metav1.GetOptions{})
	if err != nil || got.GetResourceVersion() != created.GetResourceVersion() {
		t.Fatalf("get: %v %v", got, err)
	}

	_ = unstructured.SetNestedField(got.Object, "blue", "spec", "color")
	updated, err := widgets.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if updated.GetGeneration() != 2 || updated.GetResourceVersion() == got.GetResourceVersion() {
		t.Errorf("updated metadata: %v", updated.Object["metadata"])
	}
	// The old resourceVersion is stale now.
	_ = unstructured.SetNestedField(got.Object, "green", "spec", "color")
	if _, err := widgets.Update(ctx, got, metav1.UpdateOptions{}); !errors.IsConflict(err) {
		t.Errorf("stale update: %v", err)
	}

	_ = unstructured.SetNestedField(updated.Object, int64(2), "status", "readyReplicas")
	st, err := widgets.UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rr, _, _ := unstructured.NestedInt64(st.Object, "status", "readyReplicas"); rr != 2 || st.GetGeneration() != 2 {
		t.Errorf("status update: %v", st.Object)
	}

	patched, err := widgets.Patch(ctx, "w1", types.MergePatchType, []byte(`{"spec":{"size":"large"}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s, _, _ := unstructured.NestedString(patched.Object, "spec", "size"); s != "large" {
		t.Errorf("patched: %v", patched.Object["spec"])
	}

	if _, err := widgets.Create(ctx, newWidget("w2", "red"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := widgets.List(ctx, metav1.ListOptions{LabelSelector: "app=demo"})
	if err != nil || len(list.Items) != 2 || list.GetResourceVersion() == "" {
		t.Fatalf("list: %v %v", list, err)
	}
	list, err = widgets.List(ctx, metav1.ListOptions{FieldSelector: "spec.color=red"})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetName() != "w2" {
		t.Fatalf("list by field: %v %v", list, err)
	}
	page, err := widgets.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil || len(page.Items) != 1 || page.GetContinue() == "" || page.GetRemainingItemCount() == nil || *page.GetRemainingItemCount() != 1 {
		t.Fatalf("first page: %+v %v", page, err)
	}

	if err := widgets.Delete(ctx, "w1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := widgets.Get(ctx, "w1", metav1.GetOptions{}); !errors.IsNotFound(err) {
		t.Errorf("get after delete: %v", err)
	}
	if err := widgets.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if list, err := widgets.List(ctx, metav1.ListOptions{}); err != nil || len(list.Items) != 0 {
		t.Errorf("after deletecollection: %v %v", list, err)
	}
}

func TestClientGoDynamicWatch(t *testing.T) {
	ts := startServer(t)
	dyn, err := dynamic.NewForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	widgets := dyn.Resource(widgetsGVR).Namespace("default")
	first, err := widgets.Create(ctx, newWidget("before", "red"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := widgets.Watch(ctx, metav1.ListOptions{ResourceVersion: first.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	c, err := widgets.Create(ctx, newWidget("during", "red"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := widgets.Patch(ctx, "during", types.MergePatchType, []byte(`{"spec":{"color":"blue"}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := widgets.Delete(ctx, "during", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		typ watch.EventType
		rv  string
	}{{watch.Added, c.GetResourceVersion()}, {watch.Modified, p.GetResourceVersion()}, {watch.Deleted, ""}}
	for i, wnt := range want {
		select {
		case e, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %d events", i)
			}
			u, isU := e.Object.(*unstructured.Unstructured)
			if e.Type != wnt.typ || !isU || u.GetName() != "during" {
				t.Fatalf("event %d: %s %T %v", i, e.Type, e.Object, e.Object)
			}
			if wnt.rv != "" && u.GetResourceVersion() != wnt.rv {
				t.Errorf("event %d rv %s, want %s", i, u.GetResourceVersion(), wnt.rv)
			}
		case <-ctx.Done():
			t.Fatalf("waiting for event %d: %v", i, ctx.Err())
		}
	}
}
