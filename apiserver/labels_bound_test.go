package apiserver_test

import (
	"net/http"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
)

// TestRequestLabelsBounded: a request's resource labels come from its
// path; those of a group, version, resource or subresource the server does
// not serve are left empty, so that clients cannot make series without
// bound, while a served resource keeps its labels whatever the outcome.
func TestRequestLabelsBounded(t *testing.T) {
	obs := newEnds()
	_, ts := startOps(t, apiserver.Options{Observer: obs})
	served := apiserver.RequestLabels{Verb: "GET", Group: "stable.example.com", Version: "v1", Resource: "widgets",
		Scope: "resource", Component: "apiserver"}
	tests := []struct {
		name string
		path string
		code int
		want apiserver.RequestLabels
	}{
		{"served resource, missing object", widgetsPath + "/missing", http.StatusNotFound, served},
		{"served subresource", widgetsPath + "/missing/status", http.StatusNotFound,
			func() apiserver.RequestLabels { l := served; l.Subresource = "status"; return l }()},
		{"unknown group", "/apis/made.up.example/v1/namespaces/default/things/x", http.StatusNotFound,
			apiserver.RequestLabels{Verb: "GET", Scope: "resource", Component: "apiserver"}},
		{"unknown resource of a served group", "/apis/stable.example.com/v1/namespaces/default/r4nd0m/x", http.StatusNotFound,
			apiserver.RequestLabels{Verb: "GET", Scope: "resource", Component: "apiserver"}},
		{"unknown subresource", widgetsPath + "/missing/r4nd0m", http.StatusNotFound,
			apiserver.RequestLabels{Verb: "GET", Scope: "resource", Component: "apiserver"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if r := do(t, ts, "GET", tc.path, "", ""); r.code != tc.code {
				t.Fatalf("GET %s: %d, want %d: %s", tc.path, r.code, tc.code, r.body)
			}
			rec := obs.next(t, "GET")
			if rec.RequestLabels != tc.want || rec.Code != tc.code {
				t.Errorf("GET %s recorded %+v code %d, want %+v code %d", tc.path, rec.RequestLabels, rec.Code, tc.want, tc.code)
			}
		})
	}
}
