package e2e

import (
	"context"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

// A client-go informer lists, watches and keeps its cache in step with
// the server.
func TestClientGoInformer(t *testing.T) {
	ts := startServer(t)
	dyn, err := dynamic.NewForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	widgets := dyn.Resource(widgetsGVR).Namespace("default")
	if _, err := widgets.Create(ctx, newWidget("pre", "red"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	factory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	inf := factory.ForResource(widgetsGVR).Informer()
	var mu sync.Mutex
	seen := map[string][]string{}
	record := func(kind string, obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		u := obj.(*unstructured.Unstructured)
		mu.Lock()
		seen[u.GetName()] = append(seen[u.GetName()], kind)
		mu.Unlock()
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { record("add", o) },
		UpdateFunc: func(_, o any) { record("update", o) },
		DeleteFunc: func(o any) { record("delete", o) },
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	if _, err := widgets.Create(ctx, newWidget("live", "red"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := widgets.Patch(ctx, "live", types.MergePatchType, []byte(`{"spec":{"color":"blue"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := widgets.Delete(ctx, "live", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"pre": "add", "live": "add,update,delete"}
	for {
		mu.Lock()
		got := map[string]string{}
		for k, v := range seen {
			s := ""
			for i, e := range v {
				if i > 0 {
					s += ","
				}
				s += e
			}
			got[k] = s
		}
		mu.Unlock()
		if got["pre"] == want["pre"] && got["live"] == want["live"] {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("informer saw %v, want %v", got, want)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if items := inf.GetStore().List(); len(items) != 1 {
		t.Errorf("informer store holds %d objects, want 1", len(items))
	}
}
