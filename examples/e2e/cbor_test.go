package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	clientfeatures "k8s.io/client-go/features"

	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// wireLog records the media types of every request and response.
type wireLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *wireLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&recordingWriter{ResponseWriter: w, log: l, r: r}, r)
	})
}

// recordingWriter logs the exchange when the response head goes out, so
// that a watch still streaming is logged too.
type recordingWriter struct {
	http.ResponseWriter
	log    *wireLog
	r      *http.Request
	logged bool
}

func (w *recordingWriter) WriteHeader(code int) {
	if !w.logged {
		w.logged = true
		w.log.mu.Lock()
		w.log.lines = append(w.log.lines, fmt.Sprintf("%s %s?%s in=%q out=%q", w.r.Method, w.r.URL.Path, w.r.URL.RawQuery,
			w.r.Header.Get("Content-Type"), w.Header().Get("Content-Type")))
		w.log.mu.Unlock()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if !w.logged {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer's Flush.
func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// saw reports whether a recorded exchange contains every fragment.
func (l *wireLog) saw(fragments ...string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
next:
	for _, line := range l.lines {
		for _, f := range fragments {
			if !strings.Contains(line, f) {
				continue next
			}
		}
		return true
	}
	return false
}

// TestDynamicClientCBOR drives the Widget server with client-go's dynamic
// client speaking CBOR. client-go reads its KUBE_FEATURE_* variables once
// per process, so when an earlier test has already read them the test
// runs again in a fresh process with the variables set.
func TestDynamicClientCBOR(t *testing.T) {
	t.Setenv("KUBE_FEATURE_ClientsAllowCBOR", "true")
	t.Setenv("KUBE_FEATURE_ClientsPreferCBOR", "true")
	gates := clientfeatures.FeatureGates()
	if !gates.Enabled(clientfeatures.ClientsAllowCBOR) || !gates.Enabled(clientfeatures.ClientsPreferCBOR) {
		if os.Getenv("KAPI_E2E_CBOR_CHILD") != "" {
			t.Fatal("CBOR feature gates still off in a fresh process")
		}
		t.Setenv("KAPI_E2E_CBOR_CHILD", "1")
		out, err := exec.Command(os.Args[0], "-test.run=^TestDynamicClientCBOR$", "-test.count=1", "-test.v").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestDynamicClientCBOR") {
			t.Fatalf("in a fresh process: %v\n%s", err, out)
		}
		return
	}

	h, err := server.NewHandler(server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var wire wireLog
	ts := httptest.NewServer(wire.wrap(h))
	t.Cleanup(ts.Close)
	dyn, err := dynamic.NewForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	widgets := dyn.Resource(widgetsGVR).Namespace("default")

	created, err := widgets.Create(ctx, newWidget("c1", "red"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(created.Object, "spec", "replicas"); r != 1 || created.GetUID() == "" ||
		created.GetCreationTimestamp().Time.IsZero() || created.GetGeneration() != 1 {
		t.Errorf("created: %v", created.Object)
	}
	if _, err := widgets.Get(ctx, "missing", metav1.GetOptions{}); !errors.IsNotFound(err) {
		t.Errorf("get missing: %v", err)
	}
	got, err := widgets.Get(ctx, "c1", metav1.GetOptions{})
	if err != nil || got.GetResourceVersion() != created.GetResourceVersion() {
		t.Fatalf("get: %v %v", got, err)
	}
	list, err := widgets.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetName() != "c1" || list.GetResourceVersion() == "" {
		t.Fatalf("list: %v %v", list, err)
	}

	w, err := widgets.Watch(ctx, metav1.ListOptions{ResourceVersion: list.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	_ = unstructured.SetNestedField(got.Object, "blue", "spec", "color")
	updated, err := widgets.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c, _, _ := unstructured.NestedString(updated.Object, "spec", "color"); c != "blue" || updated.GetGeneration() != 2 {
		t.Errorf("updated: %v", updated.Object)
	}
	if e := nextEvent(t, w); e.Type != watch.Modified || e.Object.(*unstructured.Unstructured).GetResourceVersion() != updated.GetResourceVersion() {
		t.Errorf("watch: %v %v", e.Type, e.Object)
	}

	applied, err := widgets.Apply(ctx, "a1", newWidget("a1", "green"), metav1.ApplyOptions{FieldManager: "e2e-cbor"})
	if err != nil {
		t.Fatal(err)
	}
	if mf := applied.GetManagedFields(); len(mf) != 1 || mf[0].Manager != "e2e-cbor" || mf[0].Operation != metav1.ManagedFieldsOperationApply {
		t.Errorf("applied managedFields: %+v", mf)
	}
	if e := nextEvent(t, w); e.Type != watch.Added || e.Object.(*unstructured.Unstructured).GetName() != "a1" {
		t.Errorf("watch: %v %v", e.Type, e.Object)
	}
	reapplied, err := widgets.Apply(ctx, "a1", newWidget("a1", "yellow"), metav1.ApplyOptions{FieldManager: "e2e-cbor"})
	if c, _, _ := unstructured.NestedString(reapplied.Object, "spec", "color"); err != nil || c != "yellow" {
		t.Errorf("reapply: %v %v", err, reapplied)
	}
	if e := nextEvent(t, w); e.Type != watch.Modified {
		t.Errorf("watch: %v %v", e.Type, e.Object)
	}

	if err := widgets.Delete(ctx, "c1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if e := nextEvent(t, w); e.Type != watch.Deleted || e.Object.(*unstructured.Unstructured).GetName() != "c1" {
		t.Errorf("watch: %v %v", e.Type, e.Object)
	}

	// Every exchange above went over CBOR.
	for _, want := range [][]string{
		{"POST ", `in="application/cbor"`, `out="application/cbor"`},
		{"GET /apis/stable.example.com/v1/namespaces/default/widgets/c1?", `out="application/cbor"`},
		{"GET /apis/stable.example.com/v1/namespaces/default/widgets?", `out="application/cbor"`},
		{"GET ", "watch=true", `out="application/cbor-seq"`},
		{"PUT ", `in="application/cbor"`, `out="application/cbor"`},
		{"PATCH ", `in="application/apply-patch+cbor"`, `out="application/cbor"`},
		{"DELETE ", `out="application/cbor"`},
	} {
		if !wire.saw(want...) {
			t.Errorf("no exchange with %q in:\n%s", want, strings.Join(wire.lines, "\n"))
		}
	}
}

func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case e, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed")
		}
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no watch event within 10s")
	}
	return watch.Event{}
}
