package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"

	"github.com/kapi-dev/kapi/apiserver"
	kcorev1 "github.com/kapi-dev/kapi/kinds/corev1"
)

const protobufType = "application/vnd.kubernetes.protobuf"

// contentTypes records the Content-Type of every request body and
// response, so the test can tell protobuf was on the wire.
type contentTypes struct {
	mu   sync.Mutex
	seen []string // "METHOD request-type -> response-type"
}

func (c *contentTypes) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(r)
		if err == nil {
			c.mu.Lock()
			c.seen = append(c.seen, r.Method+" "+r.Header.Get("Content-Type")+" -> "+resp.Header.Get("Content-Type"))
			c.mu.Unlock()
		}
		return resp, err
	})
}

func (c *contentTypes) all() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.seen...)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func startConfigMapServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := apiserver.New(apiserver.Options{}).Register(kcorev1.ConfigMapKind())
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts
}

func TestProtobufTypedClientset(t *testing.T) {
	ts := startConfigMapServer(t)
	var ct contentTypes
	cfg := restConfig(ts.URL)
	cfg.ContentType = protobufType
	cfg.WrapTransport = ct.wrap
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps("default")

	created, err := cms.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "settings", Labels: map[string]string{"app": "demo"}},
		Data:       map[string]string{"color": "blue", "empty": ""},
		BinaryData: map[string][]byte{"blob": {0, 1, 254, 255}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.UID == "" || created.ResourceVersion == "" || created.CreationTimestamp.IsZero() || created.Data["color"] != "blue" ||
		string(created.BinaryData["blob"]) != "\x00\x01\xfe\xff" {
		t.Fatalf("created: %+v", created)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}}, metav1.CreateOptions{}); !errors.IsAlreadyExists(err) {
		t.Fatalf("second create: %v, want AlreadyExists", err)
	}

	got, err := cms.Get(ctx, "settings", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.UID != created.UID || got.Labels["app"] != "demo" || got.Data["empty"] != "" || len(got.Data) != 2 {
		t.Fatalf("got: %+v", got)
	}

	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=demo"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "settings" || list.ResourceVersion == "" {
		t.Fatalf("list: %+v", list)
	}

	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	got.Data["color"] = "red"
	updated, err := cms.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Data["color"] != "red" || updated.ResourceVersion == got.ResourceVersion {
		t.Fatalf("updated: %+v", updated)
	}
	got.ResourceVersion = created.ResourceVersion
	if _, err := cms.Update(ctx, got, metav1.UpdateOptions{}); !errors.IsConflict(err) {
		t.Fatalf("stale update: %v, want Conflict", err)
	}

	if err := cms.Delete(ctx, "settings", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &created.UID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "settings", metav1.GetOptions{}); !errors.IsNotFound(err) {
		t.Fatalf("get after delete: %v, want NotFound", err)
	}

	expectEvent(t, w, watch.Modified, func(cm *corev1.ConfigMap) bool { return cm.Data["color"] == "red" })
	expectEvent(t, w, watch.Deleted, func(cm *corev1.ConfigMap) bool { return cm.Name == "settings" })

	assertProtobufExchanges(t, ct.all())
}

// assertProtobufExchanges checks that every exchange with a body went as
// protobuf both ways, and the watch as a protobuf stream.
func assertProtobufExchanges(t *testing.T, exchanges []string) {
	t.Helper()
	var sawStream bool
	for _, s := range exchanges {
		if !strings.Contains(s, "-> "+protobufType) {
			t.Errorf("exchange not in protobuf: %s", s)
		}
		if (strings.HasPrefix(s, "POST") || strings.HasPrefix(s, "PUT") || strings.HasPrefix(s, "DELETE")) && !strings.HasPrefix(s[strings.Index(s, " ")+1:], protobufType) {
			t.Errorf("request body not in protobuf: %s", s)
		}
		sawStream = sawStream || strings.HasSuffix(s, protobufType+";stream=watch")
	}
	if !sawStream {
		t.Errorf("no protobuf watch stream among %q", exchanges)
	}
}

func expectEvent(t *testing.T, w watch.Interface, typ watch.EventType, match func(*corev1.ConfigMap) bool) {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatalf("watch closed, waiting for %s", typ)
		}
		cm, isCM := ev.Object.(*corev1.ConfigMap)
		if ev.Type != typ || !isCM || !match(cm) {
			t.Fatalf("event %s %#v, want %s", ev.Type, ev.Object, typ)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s event", typ)
	}
}

// TestProtobufMetadataClient: client-go's metadata client asks for
// PartialObjectMetadata(List) in protobuf first.
func TestProtobufMetadataClient(t *testing.T) {
	ts := startConfigMapServer(t)
	var ct contentTypes
	cfg := restConfig(ts.URL)
	cfg.WrapTransport = ct.wrap
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, name := range []string{"a", "b"} {
		_, err := cs.CoreV1().ConfigMaps("ns").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name,
			Annotations: map[string]string{"note": name}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	mc, err := metadata.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res := mc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("ns")
	list, err := res.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2 || list.Items[1].Name != "b" || list.Items[1].Annotations["note"] != "b" {
		t.Fatalf("metadata list: %+v", list)
	}
	one, err := res.Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The client checks the kind and apiVersion of what it reads, then
	// clears them.
	if one.Name != "a" || one.UID == "" || one.Annotations["note"] != "a" {
		t.Fatalf("metadata get: %+v", one)
	}
	var partial int
	for _, s := range ct.all() {
		if strings.HasPrefix(s, "GET") {
			partial++
			// Named by its media type alone, as kube-apiserver names
			// partial metadata; the client decodes it all the same.
			if !strings.HasSuffix(s, "-> "+protobufType) {
				t.Errorf("metadata read not in protobuf: %s", s)
			}
		}
	}
	if partial != 2 {
		t.Errorf("%d metadata reads, want 2: %q", partial, ct.all())
	}
}
