package e2e

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// An informer of client-go v0.37, whose reflector streams its initial
// list (WatchListClient, on by default), holds exactly the Widgets
// created, as returned by their creates: nothing added (no empty
// "status", which kube-apiserver does not send for a custom resource
// whose status was never written), nothing left out.
func TestWatchListInformerHoldsWhatWasCreated(t *testing.T) {
	t.Setenv("KUBE_FEATURE_WatchListClient", "true")
	ts := startServer(t)
	dyn, err := dynamic.NewForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	widgets := dyn.Resource(widgetsGVR).Namespace("default")
	created := map[string]*unstructured.Unstructured{}
	for _, name := range []string{"w1", "w2", "w3"} {
		w, err := widgets.Create(ctx, newWidget(name, "red"), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := w.Object["status"]; ok {
			t.Errorf("created %s with a status: %v", name, w.Object["status"])
		}
		created[name] = w
	}
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, "default", nil)
	inf := factory.ForResource(widgetsGVR).Informer()
	factory.Start(ctx.Done())
	defer func() { cancel(); factory.Shutdown() }() // Shutdown waits for the stop
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	held := inf.GetStore().List()
	if len(held) != len(created) {
		t.Fatalf("informer holds %d widgets, want %d", len(held), len(created))
	}
	for _, o := range held {
		got := o.(*unstructured.Unstructured)
		if diff := cmp.Diff(created[got.GetName()].Object, got.Object); diff != "" {
			t.Errorf("informer holds other than the create returned (-want +got):\n%s", diff)
		}
	}
}

// tableAccept asks for Tables only.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io"

type acceptTables struct{ next http.RoundTripper }

func (a acceptTables) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Accept", tableAccept)
	return a.next.RoundTrip(r)
}

// A watch-list stream of Tables is Tables through to its end, as
// kube-apiserver's: the bookmark that ends the initial events is a Table
// whose row carries the annotation. client-go's reflector skips Table
// events ("Unsupported watch event object gvk"), so an informer asking
// for Tables never syncs, as against kube-apiserver; it used to take the
// bookmark, sent as a Widget, and sync holding nothing.
func TestWatchListOfTables(t *testing.T) {
	t.Setenv("KUBE_FEATURE_WatchListClient", "true")
	ts := startServer(t)
	plain, err := dynamic.NewForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, name := range []string{"w1", "w2"} {
		if _, err := plain.Resource(widgetsGVR).Namespace("default").Create(ctx, newWidget(name, "red"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := restConfig(ts.URL)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return acceptTables{rt} }
	tables, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w, err := tables.Resource(widgetsGVR).Namespace("default").Watch(ctx, metav1.ListOptions{Watch: true,
		SendInitialEvents: ptr.To(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var got []string
	for ev := range w.ResultChan() {
		u := ev.Object.(*unstructured.Unstructured)
		rows, _, _ := unstructured.NestedSlice(u.Object, "rows")
		if u.GetKind() != "Table" || len(rows) != 1 {
			t.Fatalf("%s event of %s with %d rows, want a Table of one row: %v", ev.Type, u.GetKind(), len(rows), u.Object)
		}
		cells, _, _ := unstructured.NestedSlice(rows[0].(map[string]any), "cells")
		got = append(got, string(ev.Type)+" "+cells[0].(string))
		if ev.Type == watch.Bookmark {
			end, _, _ := unstructured.NestedString(rows[0].(map[string]any), "object", "metadata", "annotations", metav1.InitialEventsAnnotationKey)
			if end != "true" {
				t.Errorf("bookmark row %v, want the initial-events-end annotation", rows[0])
			}
			break
		}
	}
	if diff := cmp.Diff([]string{"ADDED w1", "ADDED w2", "BOOKMARK "}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(tables, 0, "default", nil)
	inf := factory.ForResource(widgetsGVR).Informer()
	factory.Start(ctx.Done())
	defer func() { cancel(); factory.Shutdown() }() // Shutdown waits for the stop
	sctx, scancel := context.WithTimeout(ctx, time.Second)
	defer scancel()
	if cache.WaitForCacheSync(sctx.Done(), inf.HasSynced) {
		t.Errorf("an informer of Tables synced, holding %d objects", len(inf.GetStore().List()))
	}
}
