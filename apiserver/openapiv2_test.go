package apiserver_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/apiserver"
)

// TestOpenAPIV2 checks /openapi/v2 as kube-apiserver serves it: JSON
// with an entity tag, 304 when the client has it, and the Widget's
// definition under kube's name.
func TestOpenAPIV2(t *testing.T) {
	srv := apiserver.New(apiserver.Options{})
	t.Cleanup(srv.Close)
	srv.Register(widgetKind())
	serve := func(hdr ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "/openapi/v2", nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}
	first := serve("Accept", "application/json")
	etag := first.Header().Get("Etag")
	type answer struct {
		Code              int
		ContentType, Body string
	}
	for _, tc := range []struct {
		name string
		hdr  []string
		want answer
	}{
		{"the same document again", []string{"Accept", "application/json"}, answer{200, "application/json", "widget"}},
		{"no Accept", nil, answer{200, "application/json", "widget"}},
		{"the client has it", []string{"Accept", "application/json", "If-None-Match", etag}, answer{304, "", ""}},
		{"an older one", []string{"Accept", "application/json", "If-None-Match", `"0"`}, answer{200, "application/json", "widget"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(tc.hdr...)
			got := answer{Code: rec.Code, ContentType: rec.Header().Get("Content-Type")}
			if strings.Contains(rec.Body.String(), `"com.example.stable.v1.Widget":{`) {
				got.Body = "widget"
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if e := rec.Header().Get("Etag"); e != etag {
				t.Errorf("Etag %s, want %s", e, etag)
			}
		})
	}
	if first.Code != http.StatusOK || len(etag) != 130 {
		t.Errorf("first: %d, Etag %q", first.Code, etag)
	}
}
