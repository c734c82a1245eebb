package discovery

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/meta"
)

func widgets() Resource {
	return Resource{
		Group: "stable.example.com", Version: "v1", Kind: "Widget",
		Resource: "widgets", Singular: "widget", Namespaced: true,
		Verbs:      []string{"get", "list"},
		ShortNames: []string{"wd"},
		Subresources: []Subresource{{Name: "status", Group: "stable.example.com", Version: "v1", Kind: "Widget",
			Verbs: []string{"get"}}},
		StorageKind: meta.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "Widget"},
	}
}

// TestBuild: the legacy documents list the group, its version and the
// resource with its subresources.
func TestBuild(t *testing.T) {
	d := Build([]Resource{widgets()}, []string{"stable.example.com"}, slices.Clone)
	g, ok := d.Group("stable.example.com")
	if !ok || g.PreferredVersion.GroupVersion != "stable.example.com/v1" {
		t.Fatalf("group: %+v, %v", g, ok)
	}
	rl, ok := d.ResourceList(meta.GroupVersion{Group: "stable.example.com", Version: "v1"})
	if !ok || len(rl.Resources) != 2 || rl.Resources[1].Name != "widgets/status" || rl.Resources[0].StorageVersionHash == "" {
		t.Fatalf("resource list: %+v, %v", rl, ok)
	}
	if len(d.OpenAPIErrors()) != 0 {
		t.Fatalf("OpenAPI errors: %v", d.OpenAPIErrors())
	}
	if !strings.Contains(string(d.OpenAPIIndex()), "apis/stable.example.com/v1") {
		t.Fatalf("OpenAPI index: %s", d.OpenAPIIndex())
	}
}

// TestServeAPIsAggregated: the aggregated form is served when asked for,
// and revalidated by its ETag.
func TestServeAPIsAggregated(t *testing.T) {
	d := Build([]Resource{widgets()}, []string{"stable.example.com"}, slices.Clone)
	r := httptest.NewRequest("GET", "/apis", nil)
	r.Header.Set("Accept", aggregatedDiscoveryType)
	w := httptest.NewRecorder()
	d.ServeAPIs(w, r)
	if w.Code != 200 || w.Header().Get("Content-Type") != aggregatedDiscoveryType {
		t.Fatalf("aggregated: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	r.Header.Set("If-None-Match", w.Header().Get("Etag"))
	w = httptest.NewRecorder()
	d.ServeAPIs(w, r)
	if w.Code != http.StatusNotModified {
		t.Fatalf("revalidation: %d", w.Code)
	}
	w = httptest.NewRecorder()
	d.ServeAPIs(w, httptest.NewRequest("GET", "/apis", nil))
	if w.Header().Get("Content-Type") != legacyDiscoveryType || !strings.Contains(w.Body.String(), `"kind":"APIGroupList"`) {
		t.Fatalf("legacy: %q %s", w.Header().Get("Content-Type"), w.Body)
	}
}
