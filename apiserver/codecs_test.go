package apiserver_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/codec"
)

// countingJSON is the JSON serializer counting its decodes.
type countingJSON struct {
	codec.JSON
	decodes *atomic.Int64
}

func (c countingJSON) Decode(data []byte, v any) ([]error, error) {
	c.decodes.Add(1)
	return c.JSON.Decode(data, v)
}

// The object a patch produces is decoded by the host's JSON serializer,
// not by one of the server's own.
func TestPatchResultDecodedWithServerCodecs(t *testing.T) {
	var decodes atomic.Int64
	srv := apiserver.New(apiserver.Options{Codecs: codec.NewRegistry(countingJSON{decodes: &decodes}, codec.YAML{})})
	srv.Register(gadgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	path := "/apis/stable.example.com/v1/gadgets"
	if r := serveOnce(srv, "POST", path, "application/json", `{"metadata":{"name":"g"},"spec":{"owner":"a"}}`); r.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.Code, r.Body)
	}
	before := decodes.Load()
	r := serveOnce(srv, "PATCH", path+"/g", "application/merge-patch+json", `{"spec":{"owner":"b"}}`)
	if r.Code != http.StatusOK || !strings.Contains(r.Body.String(), `"owner":"b"`) {
		t.Fatalf("patch: %d %s", r.Code, r.Body)
	}
	if n := decodes.Load() - before; n == 0 {
		t.Error("the patched object was not decoded by the host's JSON serializer")
	}
}

// A server whose codecs have no JSON serializer cannot store objects or
// apply patches: registration says so.
func TestCodecsWithoutJSONRefused(t *testing.T) {
	srv := apiserver.New(apiserver.Options{Codecs: codec.NewRegistry(codec.YAML{})})
	srv.Register(gadgetKind())
	t.Cleanup(srv.Close)
	if err := srv.Err(); err == nil || !strings.Contains(err.Error(), "no application/json serializer") {
		t.Fatalf("Err() = %v, want a missing JSON serializer", err)
	}
}

// serveOnce sends one request to srv in process.
func serveOnce(srv *apiserver.Server, method, path, contentType, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec
}
