package apiserver

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver/internal/handlers"
	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
	"github.com/kapi-dev/kapi/apiserver/internal/tables"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/resourceversion"
)

// rowThingList is a list of rowThings as the codecs decode it.
type rowThingList struct {
	meta.TypeMeta `json:",inline"`
	ListMeta      meta.ListMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Items         []rowThing    `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// TestStreamedListsMatchEncodedLists checks that JSON, protobuf and CBOR
// lists written as they are made, in several chunks, from the stored or
// kept bytes are what encoding the List of decoded objects gives: byte for
// byte, and item by item once decoded by the codecs, with the
// Content-Length of their size or gzipped, for values stored as JSON or
// protobuf, whole or in pages followed through their continue tokens.
func TestStreamedListsMatchEncodedLists(t *testing.T) {
	const (
		objects = 24
		pad     = 2 * responsewriters.StreamChunk / objects // the whole list is 2 chunks
	)
	for _, storage := range []string{codec.MediaTypeJSON, codec.MediaTypeProtobuf} {
		s := newServer(Options{StorageMediaType: storage})
		s.kinds.Register(Kind{Group: "rows.example.com", Version: "v1", Kind: "Thing", Resource: "things", Namespaced: true,
			New: func() meta.Object { return &rowThing{} }})
		if err := s.kinds.Err(); err != nil {
			t.Fatal(err)
		}
		h := s.kinds.lookup("rows.example.com", "v1", "things")
		t.Cleanup(h.Resource.Cache.Stop)
		path := "/apis/rows.example.com/v1/namespaces/ns/things"
		for i := range objects {
			body := fmt.Sprintf(`{"apiVersion":"rows.example.com/v1","kind":"Thing","metadata":{"name":"t%03d","annotations":{"pad":%q}},"spec":{"count":%d,"note":"n%d"}}`,
				i, strings.Repeat(string(rune('a'+i%26)), pad+i), i, i)
			if rec := serve(s, "POST", path, "application/json", body); rec.Code != http.StatusCreated {
				t.Fatalf("create: %d %s", rec.Code, rec.Body)
			}
		}
		ts := httptest.NewServer(s)
		t.Cleanup(ts.Close)
		for _, mt := range []string{codec.MediaTypeJSON, codec.MediaTypeProtobuf, codec.MediaTypeCBOR} {
			for _, gz := range []bool{false, true} {
				for _, limit := range []int{0, 9} {
					t.Run(fmt.Sprintf("storage=%s/%s/gzip=%v/limit=%d", storage, mt, gz, limit), func(t *testing.T) {
						ser, _ := s.Codecs.Lookup(mt)
						var names []string
						next := ""
						for pages := 0; ; pages++ {
							q := url.Values{}
							if limit > 0 {
								q.Set("limit", strconv.Itoa(limit))
							}
							if next != "" {
								q.Set("continue", next)
							}
							got := getList(t, ts.URL+path+"?"+q.Encode(), mt, gz)
							want := encodeListSlow(t, h, ser, q)
							if !bytes.Equal(got, want) {
								t.Fatalf("page %d: %d bytes differ from the %d of the encoded List", pages, len(got), len(want))
							}
							gl, wl := decodeList(t, ser, got), decodeList(t, ser, want)
							if diff := cmp.Diff(wl.ListMeta, gl.ListMeta); diff != "" || len(gl.Items) != len(wl.Items) {
								t.Fatalf("page %d: %d items, want %d; list metadata (-want +got):\n%s", pages, len(gl.Items), len(wl.Items), diff)
							}
							for i := range gl.Items {
								if diff := cmp.Diff(wl.Items[i], gl.Items[i]); diff != "" {
									t.Fatalf("page %d item %d (-want +got):\n%s", pages, i, diff)
								}
								names = append(names, gl.Items[i].Name)
							}
							if left := gl.ListMeta.RemainingItemCount; left != nil && int(*left) != objects-len(names) {
								t.Errorf("page %d: remainingItemCount %d after %d items", pages, *left, len(names))
							}
							if next = gl.ListMeta.Continue; next == "" {
								break
							}
						}
						if len(names) != objects || names[0] != "t000" || names[objects-1] != fmt.Sprintf("t%03d", objects-1) {
							t.Errorf("the pages held %d objects: %v", len(names), names)
						}
					})
				}
			}
		}
	}
}

// getList GETs a list in a media type and returns its body, checking its
// Content-Length or, asked for gzip, its Content-Encoding.
func getList(t *testing.T, u, mt string, gz bool) []byte {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", mt)
	if gz {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	// Without compression off the transport would ask for gzip itself and
	// hide the response's encoding and length.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the list: %v", err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != mt {
		t.Fatalf("GET %s as %s: %d %s %.300s", u, mt, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
		return body
	}
	if gz && len(body) > responsewriters.GzipThreshold {
		t.Errorf("a list of %d bytes was not gzipped", len(body))
	}
	if cl := resp.Header.Get("Content-Length"); cl != strconv.Itoa(len(body)) {
		t.Errorf("Content-Length %q for %d bytes", cl, len(body))
	}
	return body
}

// encodeListSlow is the list a GET with query q answers, as it was made
// before lists were written from kept bytes: a List of decoded objects,
// encoded.
func encodeListSlow(t *testing.T, h *handlers.Handler, ser codec.Serializer, q url.Values) []byte {
	t.Helper()
	opts, err := resourceversion.ParseList(q)
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.ListPage(context.Background(), "ns", handlers.Selectors{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	l, err := p.List(h.Resource)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ser.Encode(&buf, l); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decodeList decodes a list of rowThings with the codec it is in.
func decodeList(t *testing.T, ser codec.Serializer, b []byte) *rowThingList {
	t.Helper()
	var l rowThingList
	var err error
	if ser.MediaType() == codec.MediaTypeJSON {
		err = json.Unmarshal(b, &l)
	} else {
		_, err = ser.Decode(b, &l)
	}
	if err != nil {
		t.Fatalf("decoding a list of %d bytes: %v", len(b), err)
	}
	if l.Kind != "ThingList" || l.APIVersion != "rows.example.com/v1" {
		t.Fatalf("decoded a %s %s", l.APIVersion, l.Kind)
	}
	return &l
}

// TestPartialListsMatchRendering checks that PartialObjectMetadataLists in
// protobuf and CBOR, written from partial objects kept per object
// version, are byte for byte the encoding of the rendered List of
// decoded objects, in both versions of meta.k8s.io, whole and in pages,
// and that a kept partial object is not served for a later version of
// its object.
func TestPartialListsMatchRendering(t *testing.T) {
	const objects = 30
	s := newServer(Options{})
	s.kinds.Register(Kind{Group: "rows.example.com", Version: "v1", Kind: "Thing", Resource: "things", Namespaced: true,
		New: func() meta.Object { return &rowThing{} }})
	if err := s.kinds.Err(); err != nil {
		t.Fatal(err)
	}
	h := s.kinds.lookup("rows.example.com", "v1", "things")
	t.Cleanup(h.Resource.Cache.Stop)
	path := "/apis/rows.example.com/v1/namespaces/ns/things"
	for i := range objects {
		body := fmt.Sprintf(`{"apiVersion":"rows.example.com/v1","kind":"Thing","metadata":{"name":"t%03d","labels":{"i":"%d"},"annotations":{"pad":%q}},"spec":{"note":"n"}}`,
			i, i, strings.Repeat("p", 2*responsewriters.StreamChunk/objects))
		if rec := serve(s, "POST", path, "application/json", body); rec.Code != http.StatusCreated {
			t.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
	}
	for _, step := range []string{"first read", "kept", "after a change"} {
		if step == "after a change" {
			if rec := serve(s, "PATCH", path+"/t007", "application/merge-patch+json", `{"metadata":{"labels":{"i":"changed"}}}`); rec.Code != http.StatusOK {
				t.Fatalf("patch: %d %s", rec.Code, rec.Body)
			}
		}
		for _, mt := range []string{codec.MediaTypeProtobuf, codec.MediaTypeCBOR} {
			for _, v := range []string{"v1", "v1beta1"} {
				for _, q := range []string{"", "limit=11"} {
					accept := mt + ";as=PartialObjectMetadataList;g=meta.k8s.io;v=" + v
					rec := serve(s, "GET", path+"?"+q, "", "", accept)
					if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != mt {
						t.Fatalf("%s: GET ?%s as %s: %d %s %.300s", step, q, accept, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
					}
					ser, _ := s.Codecs.Lookup(mt)
					query, _ := url.ParseQuery(q)
					opts, err := resourceversion.ParseList(query)
					if err != nil {
						t.Fatal(err)
					}
					p, err := h.ListPage(context.Background(), "ns", handlers.Selectors{}, opts)
					if err != nil {
						t.Fatal(err)
					}
					l, err := p.List(h.Resource)
					if err != nil {
						t.Fatal(err)
					}
					out := handlers.ReadOutput{Serializer: ser, As: tables.AsPartialList, ApiVersion: "meta.k8s.io/" + v}
					rendered, err := out.Render(h.Resource, l)
					if err != nil {
						t.Fatal(err)
					}
					var want bytes.Buffer
					if err := ser.Encode(&want, rendered); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(rec.Body.Bytes(), want.Bytes()) {
						t.Errorf("%s: GET ?%s as %s: %d bytes differ from the %d of the rendered list", step, q, accept, rec.Body.Len(), want.Len())
					}
					var got tables.PartialList
					if _, err := ser.Decode(rec.Body.Bytes(), &got); err != nil {
						t.Fatalf("decoding: %v", err)
					}
					if n := len(got.Items); n != len(l.Items) || got.Items[0].Metadata.Name != "t000" {
						t.Errorf("%s: %d partial objects, want %d", step, n, len(l.Items))
					}
				}
			}
		}
	}
}
