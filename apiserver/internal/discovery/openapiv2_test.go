package discovery

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestServeOpenAPIV2Forms: /openapi/v2 answers JSON or gnostic's
// protobuf by the first clause of Accept that names one, both with the
// JSON's entity tag, and 406 with an empty body otherwise, as
// kube-apiserver does.
func TestServeOpenAPIV2Forms(t *testing.T) {
	d := Build([]Resource{widgets()}, []string{"stable.example.com"}, slices.Clone)
	const pb = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	etag := string(d.openapiV2ETag)
	tests := []struct {
		name, accept, ifNoneMatch string
		want                      []any // code, Content-Type, Etag, Vary, protobuf body
	}{
		{"no Accept", "", "", []any{200, "application/json", etag, "Accept", false}},
		{"older spelling", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "", []any{200, pb, etag, "Accept", true}},
		{"newer spelling", pb, "", []any{200, pb, etag, "Accept", true}},
		{"revalidated", pb, etag, []any{304, "", etag, "Accept", false}},
		{"higher q", "application/json;q=0.5, " + pb + ";q=0.9", "", []any{200, pb, etag, "Accept", true}},
		{"first clause", "application/json, " + pb, "", []any{200, "application/json", etag, "Accept", false}},
		{"wildcard", "application/*", "", []any{200, "application/json", etag, "Accept", false}},
		{"q=0 still served", pb + ";q=0", "", []any{200, pb, etag, "Accept", true}},
		{"yaml", "application/yaml", "", []any{406, "", "", "Accept", false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/openapi/v2", nil)
			if tc.accept != "" {
				r.Header.Set("Accept", tc.accept)
			}
			if tc.ifNoneMatch != "" {
				r.Header.Set("If-None-Match", tc.ifNoneMatch)
			}
			w := httptest.NewRecorder()
			d.ServeOpenAPIV2(w, r)
			isPB := w.Code == 200 && string(w.Body.Bytes()) == string(d.openapiV2Protobuf)
			got := []any{w.Code, w.Header().Get("Content-Type"), w.Header().Get("Etag"), w.Header().Get("Vary"), isPB}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if w.Code == 406 && w.Body.Len() != 0 {
				t.Errorf("406 body %q, want none", w.Body.String())
			}
		})
	}
}
