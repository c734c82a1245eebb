package apiserver

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver/internal/handlers"
	"github.com/kapi-dev/kapi/apiserver/internal/tables"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/resourceversion"
)

// rowThing is a kind whose printer columns cover every cell type, a date
// in the past (so that its age does not change while a test runs), and
// values a column cannot show.
type rowThing struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec            rowThingSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

type rowThingSpec struct {
	Since   string   `json:"since,omitempty" protobuf:"bytes,1,opt,name=since"`
	Count   *int32   `json:"count,omitempty" protobuf:"varint,2,opt,name=count"`
	Enabled bool     `json:"enabled,omitempty" protobuf:"varint,3,opt,name=enabled"`
	Tags    []string `json:"tags,omitempty" protobuf:"bytes,4,rep,name=tags"`
	Note    string   `json:"note,omitempty" protobuf:"bytes,5,opt,name=note"`
}

var rowColumns = []PrinterColumn{
	{Name: "Since", Type: "date", JSONPath: ".spec.since"},
	{Name: "Count", Type: "integer", JSONPath: ".spec.count"},
	{Name: "Ratio", Type: "number", JSONPath: ".spec.count"},
	{Name: "Enabled", Type: "boolean", JSONPath: ".spec.enabled"},
	{Name: "Tags", Type: "string", JSONPath: ".spec.tags"},
	{Name: "Note", Type: "string", JSONPath: ".spec.note"},
	{Name: "Deep", Type: "string", JSONPath: ".spec.note.deeper"},
	{Name: "Wrong", Type: "integer", JSONPath: ".spec.note"},
	{Name: "Owner", Type: "string", JSONPath: ".metadata.labels.owner"},
	{Name: "Annotation", Type: "string", JSONPath: ".metadata.annotations.note"},
	{Name: "RV", Type: "string", JSONPath: ".metadata.resourceVersion"},
}

var rowThings = []string{
	`{"metadata":{"name":"a","labels":{"owner":"me"},"annotations":{"note":"<b&c> caf\u00e9"}},"spec":{"since":"2020-02-03T04:05:06Z","count":3,"enabled":true,"tags":["x","y"],"note":"caf\u00e9 \"quoted\""}}`,
	`{"metadata":{"name":"b","annotations":{"k":"v"}},"spec":{"since":"not a date"}}`,
	`{"metadata":{"name":"c"}}`,
}

// TestRowsMatchRendering checks that Tables and partial object metadata
// written from the entries' kept rows are, byte for byte, what encoding
// the rendering of the decoded objects gives, for every storage encoding
// and typed as well as unstructured kinds.
func TestRowsMatchRendering(t *testing.T) {
	typed := Kind{Group: "rows.example.com", Version: "v1", Kind: "Thing", Resource: "things", Namespaced: true,
		New: func() meta.Object { return &rowThing{} }, PrinterColumns: rowColumns}
	untyped := typed
	untyped.New = func() meta.Object { return &meta.Unstructured{} }
	noColumns := typed
	noColumns.PrinterColumns = nil
	kinds := map[string]Kind{"typed": typed, "unstructured": untyped, "no columns": noColumns}
	for _, storage := range []string{codec.MediaTypeJSON, codec.MediaTypeProtobuf, codec.MediaTypeCBOR} {
		for name, k := range kinds {
			t.Run(storage+"/"+name, func(t *testing.T) {
				s := newServer(Options{StorageMediaType: storage})
				s.kinds.Register(k)
				if err := s.kinds.Err(); err != nil {
					t.Fatal(err)
				}
				h := s.kinds.lookup("rows.example.com", "v1", "things")
				r := h.Resource
				t.Cleanup(r.Cache.Stop)
				if storage != codec.MediaTypeJSON && name == "typed" && r.StorageCodec == nil {
					t.Fatalf("%s does not store %s: the decoding path is not covered", storage, name)
				}
				path := "/apis/rows.example.com/v1/namespaces/ns/things"
				for _, body := range rowThings {
					body = `{"apiVersion":"rows.example.com/v1","kind":"Thing",` + body[1:]
					rec := serve(s, "POST", path, "application/json", body)
					if rec.Code != http.StatusCreated {
						t.Fatalf("create: %d %s", rec.Code, rec.Body)
					}
				}
				for _, tc := range []struct{ as, v, query, name string }{
					{as: tables.AsTable, v: "v1"},
					{as: tables.AsTable, v: "v1beta1", query: "?includeObject=None"},
					{as: tables.AsTable, v: "v1", query: "?includeObject=Object"},
					{as: tables.AsTable, v: "v1", query: "?limit=2"},
					{as: tables.AsPartialList, v: "v1"},
					{as: tables.AsTable, v: "v1", name: "a"},
					{as: tables.AsPartial, v: "v1", name: "a"},
					{as: tables.AsPartial, v: "v1beta1", name: "b"},
				} {
					accept := "application/json;as=" + tc.as + ";v=" + tc.v + ";g=meta.k8s.io"
					p := path
					if tc.name != "" {
						p += "/" + tc.name
					}
					rec := serve(s, "GET", p+tc.query, "", "", accept)
					if rec.Code != http.StatusOK {
						t.Fatalf("GET %s as %s: %d %s", p+tc.query, tc.as, rec.Code, rec.Body)
					}
					include := tables.IncludeObjectMeta
					if _, v, ok := strings.Cut(tc.query, "includeObject="); ok {
						include = v
					}
					want := renderSlow(t, h, handlers.ReadOutput{Serializer: codec.JSON{}, As: tc.as, ApiVersion: "meta.k8s.io/" + tc.v, Include: include},
						tc.name, strings.Contains(tc.query, "limit"))
					if got := rec.Body.Bytes(); !bytes.Equal(got, want) {
						t.Errorf("GET %s as %s:\n got %s\nwant %s", p+tc.query, tc.as, got, want)
					}
				}
			})
		}
	}
}

// renderSlow renders the collection (or the named object) the way every
// rendering was made before rows were kept: decoded objects through
// readOutput.render and the JSON encoder.
func renderSlow(t *testing.T, h *handlers.Handler, out handlers.ReadOutput, name string, paged bool) []byte {
	t.Helper()
	r := h.Resource
	var v any
	if name != "" {
		res, err := r.Cache.Get(context.Background(), r.Key("ns", name), resourceversion.Get{})
		if err != nil || res.Entry == nil {
			t.Fatal(err)
		}
		obj, err := r.Decode(res.Entry.KV)
		if err != nil {
			t.Fatal(err)
		}
		v = obj
	} else {
		opts := resourceversion.List{Semantics: resourceversion.MostRecent}
		if paged {
			opts.Limit = 2
		}
		p, err := h.ListPage(context.Background(), "ns", handlers.Selectors{}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if v, err = p.List(r); err != nil {
			t.Fatal(err)
		}
	}
	rendered, err := out.Render(r, v)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := out.Serializer.Encode(&buf, rendered); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func serve(s *server, method, path, contentType, body string, accept ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if len(accept) > 0 {
		req.Header.Set("Accept", accept[0])
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec
}
