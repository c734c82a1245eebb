package apiserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func get(t *testing.T, url, accept string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp, []byte(b.String())
}

func TestDiscoveryLegacy(t *testing.T) {
	ts := newTestServer(t)
	_, body := get(t, ts.URL+"/apis", "")
	var groups struct {
		Kind   string `json:"kind"`
		Groups []struct {
			Name             string `json:"name"`
			PreferredVersion struct {
				GroupVersion string `json:"groupVersion"`
			} `json:"preferredVersion"`
		} `json:"groups"`
	}
	// The reviews' groups come first, as kube-apiserver lists its
	// built-in groups before custom resources'.
	if err := json.Unmarshal(body, &groups); err != nil || groups.Kind != "APIGroupList" || len(groups.Groups) != 3 ||
		groups.Groups[0].Name != "authentication.k8s.io" || groups.Groups[1].Name != "authorization.k8s.io" ||
		groups.Groups[2].Name != "stable.example.com" || groups.Groups[2].PreferredVersion.GroupVersion != "stable.example.com/v1" {
		t.Fatalf("/apis: %v %s", err, body)
	}
	_, body = get(t, ts.URL+"/apis/stable.example.com", "")
	if !strings.Contains(string(body), `"kind":"APIGroup"`) {
		t.Errorf("/apis/G: %s", body)
	}
	_, body = get(t, ts.URL+"/apis/stable.example.com/v1", "")
	var rl struct {
		Kind         string `json:"kind"`
		GroupVersion string `json:"groupVersion"`
		Resources    []struct {
			Name       string   `json:"name"`
			Namespaced bool     `json:"namespaced"`
			Kind       string   `json:"kind"`
			Verbs      []string `json:"verbs"`
			ShortNames []string `json:"shortNames"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(body, &rl); err != nil || rl.Kind != "APIResourceList" || rl.GroupVersion != "stable.example.com/v1" {
		t.Fatalf("resource list: %v %s", err, body)
	}
	names := map[string]bool{}
	for _, r := range rl.Resources {
		names[r.Name] = r.Namespaced
		if r.Name == "widgets" && (len(r.Verbs) != 8 || r.ShortNames[0] != "wd" || r.Kind != "Widget") {
			t.Errorf("widgets: %+v", r)
		}
		if r.Name == "widgets/status" && strings.Join(r.Verbs, ",") != "get,patch,update" {
			t.Errorf("widgets/status: %+v", r)
		}
	}
	if ns, ok := names["widgets"]; !ok || !ns {
		t.Errorf("widgets missing or cluster-scoped: %s", body)
	}
	if ns, ok := names["gadgets"]; !ok || ns {
		t.Errorf("gadgets missing or namespaced: %s", body)
	}
	if _, ok := names["widgets/status"]; !ok {
		t.Errorf("status subresource missing: %s", body)
	}
	_, body = get(t, ts.URL+"/api", "")
	if !strings.Contains(string(body), `"kind":"APIVersions"`) {
		t.Errorf("/api: %s", body)
	}
}

func TestDiscoveryAggregated(t *testing.T) {
	ts := newTestServer(t)
	// The Accept list client-go and kubectl send.
	accept := "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
	resp, body := get(t, ts.URL+"/apis", accept)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" {
		t.Fatalf("content type %q", ct)
	}
	var list struct {
		Kind, APIVersion string
		Items            []struct {
			Metadata struct{ Name string } `json:"metadata"`
			Versions []struct {
				Version   string `json:"version"`
				Freshness string `json:"freshness"`
				Resources []struct {
					Resource     string                                `json:"resource"`
					Scope        string                                `json:"scope"`
					ResponseKind struct{ Group, Version, Kind string } `json:"responseKind"`
					Subresources []struct {
						Subresource string   `json:"subresource"`
						Verbs       []string `json:"verbs"`
					} `json:"subresources"`
				} `json:"resources"`
			} `json:"versions"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &list); err != nil || list.Kind != "APIGroupDiscoveryList" || list.APIVersion != "apidiscovery.k8s.io/v2" {
		t.Fatalf("%v %s", err, body)
	}
	if len(list.Items) != 3 || list.Items[2].Metadata.Name != "stable.example.com" || len(list.Items[2].Versions) != 1 {
		t.Fatalf("items: %s", body)
	}
	v := list.Items[2].Versions[0]
	if v.Version != "v1" || v.Freshness != "Current" || len(v.Resources) != 2 {
		t.Fatalf("version: %s", body)
	}
	for _, r := range v.Resources {
		switch r.Resource {
		case "widgets":
			if r.Scope != "Namespaced" || r.ResponseKind.Kind != "Widget" || len(r.Subresources) != 2 || r.Subresources[0].Subresource != "status" || r.Subresources[1].Subresource != "scale" {
				t.Errorf("widgets: %+v", r)
			}
		case "gadgets":
			if r.Scope != "Cluster" {
				t.Errorf("gadgets: %+v", r)
			}
		}
	}
	// Without the aggregated type in Accept, the legacy document.
	resp, _ = get(t, ts.URL+"/apis", "application/json")
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("legacy content type %q", ct)
	}
	resp, body = get(t, ts.URL+"/api", accept)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" || !strings.Contains(string(body), `"items":[]`) {
		t.Errorf("/api aggregated: %q %s", ct, body)
	}
}

func TestOpenAPI(t *testing.T) {
	ts := newTestServer(t)
	_, body := get(t, ts.URL+"/openapi/v3", "")
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(body, &index); err != nil {
		t.Fatal(err)
	}
	ref, ok := index.Paths["apis/stable.example.com/v1"]
	if !ok || !strings.HasPrefix(ref.ServerRelativeURL, "/openapi/v3/apis/stable.example.com/v1?hash=") {
		t.Fatalf("index: %s", body)
	}
	resp, body := get(t, ts.URL+ref.ServerRelativeURL, "")
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, immutable" {
		t.Fatalf("document: %d %v", resp.StatusCode, resp.Header)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	patch := doc.Paths["/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}"]["patch"]
	if !strings.Contains(string(patch), `"fieldValidation"`) || !strings.Contains(string(patch), `"x-kubernetes-group-version-kind"`) {
		t.Errorf("PATCH operation lacks fieldValidation or GVK: %s", patch)
	}
	// The ETag lets clients revalidate.
	req, _ := http.NewRequest("GET", ts.URL+"/openapi/v3/apis/stable.example.com/v1", nil)
	req.Header.Set("If-None-Match", resp.Header.Get("Etag"))
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation: %d", r2.StatusCode)
	}
	if resp, _ := get(t, ts.URL+"/openapi/v3/apis/nope/v1", ""); resp.StatusCode != 404 {
		t.Errorf("unknown document: %d", resp.StatusCode)
	}
}

func TestHealthAndVersion(t *testing.T) {
	ts := newTestServer(t)
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		if resp, body := get(t, ts.URL+p, ""); resp.StatusCode != 200 || string(body) != "ok" {
			t.Errorf("%s: %d %s", p, resp.StatusCode, body)
		}
	}
	_, body := get(t, ts.URL+"/version", "")
	var v struct{ Major, Minor, GitVersion string }
	if err := json.Unmarshal(body, &v); err != nil || v.Major != "1" || v.GitVersion == "" {
		t.Errorf("/version: %v %s", err, body)
	}
}

// TestDiscoveryMethods: the version and the core group's discovery
// documents answer only GET, as kube-apiserver's do; other methods get
// its 405.
func TestDiscoveryMethods(t *testing.T) {
	ts := newTestServer(t)
	const want = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}`
	for _, path := range []string{"/version", "/api", "/api/v1"} {
		for _, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
			r := do(t, ts, method, path, "application/json", "{}")
			if r.code != http.StatusMethodNotAllowed || strings.TrimSpace(string(r.body)) != want {
				t.Errorf("%s %s: %d %s", method, path, r.code, r.body)
			}
		}
	}
	for _, path := range []string{"/version", "/api"} {
		if r := do(t, ts, "GET", path, "", ""); r.code != http.StatusOK {
			t.Errorf("GET %s: %d %s", path, r.code, r.body)
		}
	}
}
