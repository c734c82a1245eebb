package e2e

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	restwatch "k8s.io/client-go/rest/watch"

	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// writeCounter counts the writes of each watch response, by the media
// type it asked for.
type writeCounter struct {
	mu     sync.Mutex
	writes map[string]int
}

func (c *writeCounter) wrap(h http.Handler) http.Handler {
	c.writes = map[string]int{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("watch") == "" {
			h.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(&countingWriter{ResponseWriter: w, c: c, key: r.Header.Get("Accept")}, r)
	})
}

type countingWriter struct {
	http.ResponseWriter
	c   *writeCounter
	key string
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.c.mu.Lock()
	w.c.writes[w.key]++
	w.c.mu.Unlock()
	return w.ResponseWriter.Write(b)
}

func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (c *writeCounter) count(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes[key]
}

// decoderFunc is a runtime.Decoder of a watch event's object.
type decoderFunc func(data []byte) (runtime.Object, error)

func (f decoderFunc) Decode(data []byte, _ *schema.GroupVersionKind, _ runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	obj, err := f(data)
	return obj, nil, err
}

// protobufMetadata reads the metadata of a protobuf-encoded object (the
// k8s envelope around a message whose field 1 is the ObjectMeta), which
// is all the test compares.
func protobufMetadata(data []byte) (runtime.Object, error) {
	body, ok := strings.CutPrefix(string(data), "k8s\x00")
	if !ok {
		return nil, fmt.Errorf("no protobuf envelope: %q", data)
	}
	var u runtime.Unknown
	if err := u.Unmarshal([]byte(body)); err != nil {
		return nil, err
	}
	obj := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: u.APIVersion, Kind: u.Kind}}
	for raw := u.Raw; len(raw) > 0; {
		tag, n := binary.Uvarint(raw)
		size, m := binary.Uvarint(raw[n:])
		if n <= 0 || m <= 0 || tag&7 != 2 || uint64(len(raw)-n-m) < size {
			return nil, fmt.Errorf("object fields: %q", u.Raw)
		}
		field := raw[n+m : n+m+int(size)]
		raw = raw[n+m+int(size):]
		if tag>>3 == 1 {
			if err := obj.ObjectMeta.Unmarshal(field); err != nil {
				return nil, err
			}
		}
	}
	return obj, nil
}

type seenEvent struct {
	typ       watch.EventType
	name, rv  string
	revision  int64
	isDeleted bool
}

// TestWatchBatchedFramesDecode checks that the events a watch response
// writes together (a watch from an earlier revision finds its backlog
// ready and sends it in few writes) are split back into the exact event
// sequence by client-go's watch decoder over the stream decoder, with the
// framer and serializer client-go uses for JSON, CBOR and protobuf.
func TestWatchBatchedFramesDecode(t *testing.T) {
	h, err := server.NewHandler(server.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var writes writeCounter
	ts := httptest.NewServer(writes.wrap(h))
	t.Cleanup(ts.Close)
	dyn, err := dynamic.NewForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	widgets := dyn.Resource(widgetsGVR).Namespace("default")
	start, err := widgets.Create(ctx, newWidget("start", "red"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := writeBacklog(ctx, t, widgets)

	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"}) // metav1.WatchEvent, as client-go's schemes
	unstructuredJSON := decoderFunc(func(data []byte) (runtime.Object, error) {
		u := &unstructured.Unstructured{}
		return u, u.UnmarshalJSON(data)
	})
	cborSer := cbor.NewSerializer(scheme, scheme)
	unstructuredCBOR := decoderFunc(func(data []byte) (runtime.Object, error) {
		obj, _, err := cborSer.Decode(data, nil, &unstructured.Unstructured{})
		return obj, err
	})
	tests := []struct {
		accept   string
		framer   runtime.Framer
		stream   runtime.Decoder
		embedded runtime.Decoder
	}{
		{"application/json", json.Framer, json.NewSerializerWithOptions(json.DefaultMetaFactory, scheme, scheme, json.SerializerOptions{}), unstructuredJSON},
		{"application/cbor", cbor.NewFramer(), cbor.NewSerializer(scheme, scheme, cbor.Transcode(false)), unstructuredCBOR},
		{"application/vnd.kubernetes.protobuf", protobuf.LengthDelimitedFramer, protobuf.NewRawSerializer(scheme, scheme), decoderFunc(protobufMetadata)},
	}
	for _, tc := range tests {
		t.Run(tc.accept, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/apis/stable.example.com/v1/namespaces/default/widgets?watch=1&resourceVersion="+start.GetResourceVersion(), nil)
			req.Header.Set("Accept", tc.accept)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("watch: %s", resp.Status)
			}
			dec := restwatch.NewDecoder(streaming.NewDecoder(tc.framer.NewFrameReader(resp.Body), tc.stream), tc.embedded)
			for i, w := range want {
				typ, obj, err := dec.Decode()
				if err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
				m, err := metaOf(obj)
				if err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
				got := seenEvent{typ: typ, name: m.GetName(), rv: m.GetResourceVersion(), isDeleted: typ == watch.Deleted}
				got.revision, _ = strconv.ParseInt(got.rv, 10, 64)
				if w.isDeleted { // the revision of a deletion is not known to the client that deleted
					w.rv, w.revision = got.rv, got.revision
					if i > 0 && got.revision <= want[i-1].revision {
						t.Errorf("event %d at %d after %d", i, got.revision, want[i-1].revision)
					}
				}
				if got != w {
					t.Fatalf("event %d: %+v, want %+v", i, got, w)
				}
				want[i] = w
			}
			if n := writes.count(tc.accept); n >= len(want) {
				t.Errorf("%d events in %d writes: none carried several", len(want), n)
			}
		})
	}
}

// metaOf returns an event object's metadata.
func metaOf(obj runtime.Object) (metav1.Object, error) {
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		return o, nil
	case *metav1.PartialObjectMetadata:
		return o, nil
	}
	return nil, fmt.Errorf("event object %T", obj)
}

// writeBacklog creates, patches and deletes Widgets and returns the
// events a watch from before them receives.
func writeBacklog(ctx context.Context, t *testing.T, widgets dynamic.ResourceInterface) []seenEvent {
	t.Helper()
	var want []seenEvent
	add := func(typ watch.EventType, obj *unstructured.Unstructured, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		rev, _ := strconv.ParseInt(obj.GetResourceVersion(), 10, 64)
		want = append(want, seenEvent{typ: typ, name: obj.GetName(), rv: obj.GetResourceVersion(), revision: rev})
	}
	for i := range 12 {
		name := "batch-" + strconv.Itoa(i)
		obj, err := widgets.Create(ctx, newWidget(name, "red"), metav1.CreateOptions{})
		add(watch.Added, obj, err)
		obj, err = widgets.Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"color":"blue"}}`), metav1.PatchOptions{})
		add(watch.Modified, obj, err)
		if i%3 == 0 {
			if err := widgets.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			want = append(want, seenEvent{typ: watch.Deleted, name: name, isDeleted: true})
		}
	}
	return want
}
