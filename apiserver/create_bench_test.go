package apiserver

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// benchCreateBody is a Widget-like object as clients create it: labels,
// an annotation, a spec with defaults, a pattern, a set and a map list;
// NAME is replaced by each create's name.
const benchCreateBody = `{"apiVersion":"stable.example.com/v1","kind":"BenchWidget","metadata":{"name":"NAME",` +
	`"labels":{"app.kubernetes.io/name":"widget","app.kubernetes.io/instance":"NAME"},` +
	`"annotations":{"example.com/owner":"platform-team@example.com"}},` +
	`"spec":{"replicas":3,"color":"turquoise","tags":["frontend","storefront"],` +
	`"ports":[{"name":"http","port":8080,"protocol":"TCP"},{"name":"metrics","port":9090}]}}`

// BenchmarkCreateTyped measures the server's own work for a create of a
// typed kind with a schema: decoding, defaulting, validation,
// managedFields, encoding and storing, one request after another, with
// no client or controller in the process, so that its CPU and
// allocations per create are the handler's.
func BenchmarkCreateTyped(b *testing.B) {
	sch, err := schema.FromType(registry.TypeOf(&benchWidget{}))
	if err != nil {
		b.Fatal(err)
	}
	s := newServer(Options{})
	s.kinds.Register(Kind{Group: "stable.example.com", Version: "v1", Kind: "BenchWidget", Resource: "benchwidgets",
		Namespaced: true, New: func() meta.Object { return &benchWidget{} }, Schema: sch})
	if err := s.kinds.Err(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(s.kinds.Close)
	const path = "/apis/stable.example.com/v1/namespaces/bench/benchwidgets"
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		body := bytes.ReplaceAll([]byte(benchCreateBody), []byte("NAME"), []byte("w-"+strconv.Itoa(i)))
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated {
			b.Fatalf("create: %d %s", rec.Code, rec.Body)
		}
	}
}
