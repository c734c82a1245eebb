package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

func createWidgets(t *testing.T, widgets dynamic.ResourceInterface, n int) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if _, err := widgets.Create(ctx, newWidget(fmt.Sprintf("w%04d", i), "red"), metav1.CreateOptions{}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// Informers sync 1,000 Widgets and then see every later change in order,
// with the classic list+watch and with streaming lists (WatchListClient).
func TestInformerSyncsThousandWidgets(t *testing.T) {
	for _, watchList := range []bool{false, true} {
		t.Run(fmt.Sprintf("watchList=%v", watchList), func(t *testing.T) {
			if watchList {
				t.Setenv("KUBE_FEATURE_WatchListClient", "true")
			} else {
				t.Setenv("KUBE_FEATURE_WatchListClient", "false")
			}
			ts := startServer(t)
			dyn, err := dynamic.NewForConfig(restConfig(ts.URL))
			if err != nil {
				t.Fatal(err)
			}
			widgets := dyn.Resource(widgetsGVR).Namespace("default")
			createWidgets(t, widgets, 1000)

			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			factory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
			inf := factory.ForResource(widgetsGVR).Informer()
			var mu sync.Mutex
			var colors []string
			if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
				UpdateFunc: func(_, o any) {
					u := o.(*unstructured.Unstructured)
					if u.GetName() == "w0007" {
						c, _, _ := unstructured.NestedString(u.Object, "spec", "color")
						mu.Lock()
						colors = append(colors, c)
						mu.Unlock()
					}
				},
			}); err != nil {
				t.Fatal(err)
			}
			factory.Start(ctx.Done())
			if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
				t.Fatal("informer did not sync")
			}
			if n := len(inf.GetStore().List()); n != 1000 {
				t.Fatalf("synced %d widgets", n)
			}
			want := []string{"blue", "green", "pink", "black"}
			for _, c := range want {
				if _, err := widgets.Patch(ctx, "w0007", types.MergePatchType, []byte(`{"spec":{"color":"`+c+`"}}`), metav1.PatchOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			for {
				mu.Lock()
				got := strings.Join(colors, ",")
				mu.Unlock()
				if got == strings.Join(want, ",") {
					break
				}
				select {
				case <-ctx.Done():
					t.Fatalf("updates seen %q, want %q", got, strings.Join(want, ","))
				case <-time.After(20 * time.Millisecond):
				}
			}
		})
	}
}

// kubectl's chunked listing returns every object exactly once.
func TestKubectlChunkedList(t *testing.T) {
	if os.Getenv("KAPI_KUBECTL") == "" && testing.Short() {
		t.Skip("builds kubectl")
	}
	ts := startServer(t)
	dyn, err := dynamic.NewForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	createWidgets(t, dyn.Resource(widgetsGVR).Namespace("default"), 50)
	k := kubectltest.New(t, ts.URL)
	out := kubectl(t, k, "", "get", "wd", "--chunk-size=7", "-o", "name")
	seen := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		seen[l]++
	}
	if len(seen) != 50 {
		t.Errorf("%d distinct widgets listed, want 50", len(seen))
	}
	for name, n := range seen {
		if n != 1 {
			t.Errorf("%s listed %d times", name, n)
		}
	}
}
