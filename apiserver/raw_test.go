package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver/internal/handlers"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

type rawThing struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            map[string]string `json:"spec,omitempty"`
}

// The list served from stored bytes is byte-identical to encoding the
// decoded objects.
func TestRawListMatchesEncodedList(t *testing.T) {
	for _, tc := range []struct {
		unstructured bool
		pad          int // bytes of annotation per object: above responsewriters.StreamThreshold in all, the list is streamed
	}{{false, 0}, {true, 0}, {false, responsewriters.StreamThreshold / 2}, {true, responsewriters.StreamThreshold / 2}} {
		unstructured := tc.unstructured
		t.Run(fmt.Sprintf("unstructured=%v,pad=%d", unstructured, tc.pad), func(t *testing.T) {
			k := Kind{Group: "g.example.com", Version: "v1", Kind: "Thing", Resource: "things", Namespaced: true,
				New: func() meta.Object { return &rawThing{} }, Storage: memory.New(memory.Options{})}
			if unstructured {
				k.New = func() meta.Object { return &meta.Unstructured{} }
			}
			s := newServer(Options{})
			s.kinds.Register(k)
			if err := s.kinds.Err(); err != nil {
				t.Fatal(err)
			}
			h := s.kinds.lookup("g.example.com", "v1", "things")
			r := h.Resource
			ctx := context.Background()
			for i, spec := range []string{`{"a":"<b>&"}`, `{"resourceVersion":"\u0000"}`, `{}`} {
				obj := r.NewObject()
				if err := json.Unmarshal([]byte(`{"metadata":{"name":"t`+strconv.Itoa(i)+`","namespace":"ns","annotations":{"x":"\"resourceVersion\":\"\\u0000\"","pad":"`+strings.Repeat("p", tc.pad)+`"}},"spec":`+spec+`}`), obj); err != nil {
					t.Fatal(err)
				}
				handlers.CheckTypeMeta(r, obj)
				b, err := r.Encode(obj)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := r.Store.OptimisticPut(ctx, r.Key("ns", obj.GetObjectMeta().Name), b, 0, storage.PutOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			p, err := h.ListPage(ctx, "ns", handlers.Selectors{}, resourceversion.List{})
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			h.WriteRawList(&handlers.Request{Writer: rec, Request: httptest.NewRequest("GET", "/", nil)}, p)
			list, err := p.List(r)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			if err := enc.Encode(list); err != nil {
				t.Fatal(err)
			}
			if got := rec.Body.String(); got != want.String() {
				t.Errorf("raw list\n%.2000s\nencoded list\n%.2000s", got, want.String())
			}
			if cl := rec.Header().Get("Content-Length"); cl != strconv.Itoa(rec.Body.Len()) {
				t.Errorf("Content-Length %s for a body of %d bytes", cl, rec.Body.Len())
			}
			// The placeholder never reaches a client: the spec field of
			// the same name is the only one left.
			if n := bytes.Count(rec.Body.Bytes(), registry.RvMarker); n != 1 {
				t.Errorf("placeholder seen %d times: %s", n, rec.Body.String())
			}
		})
	}
}
