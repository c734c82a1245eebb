package e2e

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

// Widget is served in v1 (stored) and v1beta1 (deprecated), where
// spec.replicas is named spec.count.

var widgetsV1beta1GVR = schema.GroupVersionResource{Group: "stable.example.com", Version: "v1beta1", Resource: "widgets"}

const deprecationWarning = "stable.example.com/v1beta1 Widget is deprecated; use stable.example.com/v1 Widget"

const widgetV1beta1YAML = `apiVersion: stable.example.com/v1beta1
kind: Widget
metadata:
  name: beta
spec:
  count: 3
  color: red
`

// TestVersionsKubectl writes and reads a Widget through each version
// with kubectl, which prints the deprecation warning for v1beta1.
func TestVersionsKubectl(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, errOut, err := k.Run(ctx, widgetV1beta1YAML, "apply", "--server-side", "-f", "-")
	if err != nil || !strings.Contains(out, "widget.stable.example.com/beta serverside-applied") {
		t.Fatalf("apply in v1beta1: %v\n%s\n%s", err, out, errOut)
	}
	if !strings.Contains(errOut, "Warning: "+deprecationWarning) {
		t.Errorf("apply in v1beta1: no deprecation warning: %q", errOut)
	}
	if got := kubectl(t, k, "", "get", "widgets.v1beta1.stable.example.com", "beta", "-o", "jsonpath={.apiVersion} {.spec.count}"); got != "stable.example.com/v1beta1 3" {
		t.Errorf("get in v1beta1: %q", got)
	}
	// The preferred version is v1.
	if got := kubectl(t, k, "", "get", "widgets", "beta", "-o", "jsonpath={.apiVersion} {.spec.replicas}"); got != "stable.example.com/v1 3" {
		t.Errorf("get in v1: %q", got)
	}
	kubectl(t, k, "", "patch", "widgets.v1.stable.example.com", "beta", "--type=merge", "-p", `{"spec":{"replicas":4}}`)
	out, errOut, err = k.Run(ctx, "", "get", "widgets.v1beta1.stable.example.com")
	if err != nil || !strings.Contains(out, "REPLICAS") || !strings.Contains(out, "beta   red     4") {
		t.Errorf("table in v1beta1: %v\n%s", err, out)
	}
	if !strings.Contains(errOut, deprecationWarning) {
		t.Errorf("table in v1beta1: no deprecation warning: %q", errOut)
	}
	if got := kubectl(t, k, "", "scale", "widgets.v1beta1.stable.example.com", "beta", "--replicas=6"); !strings.Contains(got, "scaled") {
		t.Errorf("scale in v1beta1: %q", got)
	}
	if got := kubectl(t, k, "", "get", "widgets", "beta", "-o", "jsonpath={.spec.replicas}"); got != "6" {
		t.Errorf("replicas after scaling in v1beta1: %q", got)
	}
	// A v1beta1 Widget breaking a rule or a bound is refused in
	// v1beta1's terms: the errors name spec.count, not spec.replicas.
	for _, tc := range []struct{ spec, want string }{
		{"count: 3\n  color: red\n  serial: SN", "spec.serial: Invalid value: serial SN must be SN- followed by digits"},
		{"count: 2000", "spec.count: Invalid value: 2000: spec.count in body should be less than or equal to 1000"},
	} {
		bad := strings.Replace(strings.Replace(widgetV1beta1YAML, "name: beta", "name: bad", 1), "count: 3\n  color: red", tc.spec, 1)
		out, errOut, err := k.Run(ctx, bad, "apply", "-f", "-")
		if err == nil || !strings.Contains(errOut, `The Widget "bad" is invalid: `+tc.want) || strings.Contains(errOut, "replicas") {
			t.Errorf("apply of an invalid v1beta1 Widget: %v\n%s\n%s", err, out, errOut)
		}
	}
}

// warnings collects the Warning headers a client-go client receives.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, msg)
}

func (w *warnings) count(msg string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, m := range w.msgs {
		if m == msg {
			n++
		}
	}
	return n
}

// TestVersionsClientGo writes and reads Widgets with the dynamic client
// in both versions; each v1beta1 request gets the deprecation warning.
func TestVersionsClientGo(t *testing.T) {
	ts := startServer(t)
	cfg := restConfig(ts.URL)
	seen := &warnings{}
	cfg.WarningHandler = seen
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	beta := dyn.Resource(widgetsV1beta1GVR).Namespace("default")
	v1 := dyn.Resource(widgetsGVR).Namespace("default")
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1beta1", "kind": "Widget",
		"metadata": map[string]any{"name": "a"}, "spec": map[string]any{"count": int64(2), "color": "red"},
	}}
	created, err := beta.Create(ctx, w, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedInt64(created.Object, "spec", "count"); n != 2 || created.GetAPIVersion() != "stable.example.com/v1beta1" {
		t.Errorf("created: %v", created.Object)
	}
	got, err := v1.Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); n != 2 {
		t.Errorf("in v1: %v", got.Object)
	}
	if err := unstructured.SetNestedField(got.Object, int64(5), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	if _, err := v1.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err = beta.Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedInt64(got.Object, "spec", "count"); n != 5 {
		t.Errorf("in v1beta1 after an update in v1: %v", got.Object)
	}
	// An update through v1beta1 with a stale resourceVersion conflicts,
	// whatever version it was read in.
	if _, err := beta.Update(ctx, created, metav1.UpdateOptions{}); err == nil || !strings.Contains(err.Error(), "the object has been modified") {
		t.Errorf("stale update in v1beta1: %v", err)
	}
	if n := seen.count(deprecationWarning); n != 3 {
		t.Errorf("%d deprecation warnings for 3 v1beta1 requests: %q", n, seen.msgs)
	}
}

// TestVersionsControllerRuntimeAndInformer writes Widgets with a
// controller-runtime client in v1beta1 and watches them with a client-go
// informer in v1: both see the same objects.
func TestVersionsControllerRuntimeAndInformer(t *testing.T) {
	ts := startServer(t)
	c, err := client.New(crConfig(ts.URL), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, "default", nil)
	inf := factory.ForResource(widgetsGVR).Informer()
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	for i, name := range []string{"x", "y"} {
		w := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "stable.example.com/v1beta1", "kind": "Widget",
			"metadata": map[string]any{"name": name, "namespace": "default"},
			"spec":     map[string]any{"count": int64(i + 1), "color": "blue"},
		}}
		if err := c.Create(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	patch := &unstructured.Unstructured{}
	patch.SetAPIVersion("stable.example.com/v1beta1")
	patch.SetKind("Widget")
	patch.SetNamespace("default")
	patch.SetName("y")
	if err := c.Patch(ctx, patch, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"count":9}}`))); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"x": 1, "y": 9}
	var last map[string]int64
	for ctx.Err() == nil {
		last = map[string]int64{}
		for _, o := range inf.GetStore().List() {
			u := o.(*unstructured.Unstructured)
			n, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
			if u.GetAPIVersion() == "stable.example.com/v1" {
				last[u.GetName()] = n
			}
		}
		if len(last) == 2 && last["x"] == want["x"] && last["y"] == want["y"] {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if ctx.Err() != nil {
		t.Fatalf("informer in v1 saw %v, want %v", last, want)
	}
	// And the controller-runtime client reads in v1beta1 what it wrote.
	l := &unstructured.UnstructuredList{}
	l.SetAPIVersion("stable.example.com/v1beta1")
	l.SetKind("WidgetList")
	if err := c.List(ctx, l, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	for _, u := range l.Items {
		if n, _, _ := unstructured.NestedInt64(u.Object, "spec", "count"); n != want[u.GetName()] || u.GetAPIVersion() != "stable.example.com/v1beta1" {
			t.Errorf("controller-runtime list in v1beta1: %v", u.Object)
		}
	}
}
