package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// pwidget is a kind with protobuf tags, so that it can be stored as
// Kubernetes protobuf.
type pwidget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            pwidgetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

type pwidgetSpec struct {
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	Color    string `json:"color,omitempty" protobuf:"bytes,2,opt,name=color"`
}

func pwidgetKind() apiserver.Kind {
	return apiserver.Kind{Group: "stable.example.com", Version: "v1", Kind: "Widget", Resource: "widgets",
		Namespaced: true, New: func() meta.Object { return &pwidget{} }}
}

func serveOn(t *testing.T, store storage.Interface, mediaType string, kinds ...apiserver.Kind) *httptest.Server {
	t.Helper()
	srv := apiserver.New(apiserver.Options{Storage: store, StorageMediaType: mediaType})
	for _, k := range kinds {
		srv.Register(k)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts
}

// storedPrefix returns the media type of the stored value of one widget.
func storedMediaType(t *testing.T, store storage.Interface, key string) string {
	t.Helper()
	resp, err := store.Get(context.Background(), key, storage.GetOptions{})
	if err != nil || resp.KV == nil {
		t.Fatalf("stored value of %s: %v %v", key, resp.KV, err)
	}
	return codec.Sniff(resp.KV.Value)
}

// TestStorageMediaType stores objects in each encoding and checks that
// clients see the same JSON whatever the stored form, that the stored
// values are in the asked encoding, and that a server reads values
// written in another encoding.
func TestStorageMediaType(t *testing.T) {
	const path = "/apis/stable.example.com/v1/namespaces/default/widgets"
	const key = "/stable.example.com/widgets/default/w1"
	for _, mt := range []string{codec.MediaTypeJSON, codec.MediaTypeProtobuf, codec.MediaTypeCBOR} {
		t.Run(mt, func(t *testing.T) {
			store := memory.New(memory.Options{})
			ts := serveOn(t, store, mt, pwidgetKind())
			if r := do(t, ts, http.MethodPost, path, "application/json",
				`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w1","labels":{"a":"b"}},"spec":{"replicas":2,"color":"red"}}`); r.code != http.StatusCreated {
				t.Fatalf("create: %d %s", r.code, r.body)
			}
			if got := storedMediaType(t, store, key); got != mt {
				t.Fatalf("stored as %s, want %s", got, mt)
			}
			r := do(t, ts, http.MethodPatch, path+"/w1", "application/merge-patch+json", `{"spec":{"color":"blue"}}`)
			if r.code != http.StatusOK {
				t.Fatalf("patch: %d %s", r.code, r.body)
			}
			patched := r.body
			get := do(t, ts, http.MethodGet, path+"/w1", "", "")
			if get.code != http.StatusOK || string(get.body) != string(patched) {
				t.Fatalf("get after patch:\n%s\nwant\n%s", get.body, patched)
			}
			var w pwidget
			if err := json.Unmarshal(get.body, &w); err != nil {
				t.Fatal(err)
			}
			if w.Spec.Color != "blue" || *w.Spec.Replicas != 2 || w.Labels["a"] != "b" || w.ResourceVersion == "" || w.UID == "" {
				t.Fatalf("got %+v", w)
			}
			list := do(t, ts, http.MethodGet, path, "", "")
			if !strings.Contains(string(list.body), `"resourceVersion":"`+w.ResourceVersion+`"`) {
				t.Fatalf("list does not carry the object's resourceVersion %s: %s", w.ResourceVersion, list.body)
			}

			// Another server on the same store, storing JSON, reads the
			// value and writes its own encoding over it.
			ts2 := serveOn(t, store, codec.MediaTypeJSON, pwidgetKind())
			if r := do(t, ts2, http.MethodGet, path+"/w1", "", ""); string(r.body) != string(patched) {
				t.Fatalf("JSON-storing server reads\n%s\nwant\n%s", r.body, patched)
			}
			if r := do(t, ts2, http.MethodPatch, path+"/w1", "application/merge-patch+json", `{"spec":{"color":"green"}}`); r.code != http.StatusOK {
				t.Fatalf("patch via the second server: %d %s", r.code, r.body)
			}
			if got := storedMediaType(t, store, key); got != codec.MediaTypeJSON {
				t.Fatalf("after the JSON server's write: stored as %s", got)
			}
			if r := do(t, ts, http.MethodGet, path+"/w1?resourceVersion=0", "", ""); r.code != http.StatusOK {
				t.Fatalf("first server reading a JSON value: %d %s", r.code, r.body)
			}
		})
	}
}

// TestStorageMediaTypeWatch checks that watch events of values stored in
// protobuf carry the object as JSON with its resourceVersion.
func TestStorageMediaTypeWatch(t *testing.T) {
	const path = "/apis/stable.example.com/v1/namespaces/default/widgets"
	ts := serveOn(t, memory.New(memory.Options{}), codec.MediaTypeProtobuf, pwidgetKind())
	resp, err := ts.Client().Get(ts.URL + path + "?watch=1&resourceVersion=0")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := do(t, ts, http.MethodPost, path, "application/json", `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"red"}}`)
	var created pwidget
	if err := json.Unmarshal(r.body, &created); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Type   string  `json:"type"`
		Object pwidget `json:"object"`
	}
	if err := json.Unmarshal(line, &ev); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	if ev.Type != "ADDED" || ev.Object.Spec.Color != "red" || ev.Object.ResourceVersion != created.ResourceVersion {
		t.Fatalf("event %s", line)
	}
}

func TestStorageMediaTypeRefused(t *testing.T) {
	for _, mt := range []string{"application/yaml", "text/plain"} {
		srv := apiserver.New(apiserver.Options{StorageMediaType: mt})
		srv.Register(pwidgetKind())
		if srv.Err() == nil {
			t.Errorf("StorageMediaType %q accepted", mt)
		}
		srv.Close()
	}
}

// A kind without protobuf tags is stored as JSON when protobuf is asked.
func TestStorageMediaTypeFallsBackToJSON(t *testing.T) {
	store := memory.New(memory.Options{})
	ts := serveOn(t, store, codec.MediaTypeProtobuf, widgetKind())
	createWidget(t, ts, "w1", `{"color":"red"}`)
	if got := storedMediaType(t, store, "/stable.example.com/widgets/default/w1"); got != codec.MediaTypeJSON {
		t.Fatalf("stored as %s", got)
	}
}
