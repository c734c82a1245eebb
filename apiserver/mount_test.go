package apiserver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/audit"
)

// hostMux is a host's mux: the API server at the given patterns (or
// under a stripped prefix) and the host's own handler, which answers 418,
// everywhere else.
func hostMux(t *testing.T, mount func(mux *http.ServeMux, srv *apiserver.Server)) *httptest.Server {
	t.Helper()
	srv := apiserver.New(apiserver.Options{})
	srv.Register(widgetKind()).Register(gadgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	mount(mux, srv)
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

// apiRequests are requests a client makes of the API, each with the code
// the server answers.
var apiRequests = []struct {
	method, path, body string
	code               int
}{
	{"GET", "/version", "", 200},
	{"GET", "/api", "", 200},
	{"GET", "/api/v1", "", 404}, // no core kind registered: the server says so
	{"GET", "/apis", "", 200},
	{"GET", "/apis/stable.example.com", "", 200},
	{"GET", "/apis/stable.example.com/v1", "", 200},
	{"POST", widgetsPath, `{"metadata":{"name":"w1"},"spec":{"color":"red"}}`, 201},
	{"GET", widgetsPath, "", 200},
	{"GET", widgetsPath + "/w1", "", 200},
	{"GET", widgetsPath + "/w1/status", "", 200},
	{"GET", "/apis/stable.example.com/v1/gadgets", "", 200},
	{"POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`, 201},
	{"GET", "/openapi/v3", "", 200},
	{"GET", "/openapi/v3/apis/stable.example.com/v1", "", 200},
	{"GET", "/healthz", "", 200},
	{"GET", "/healthz/ping", "", 200},
	{"GET", "/livez", "", 200},
	{"GET", "/livez/ping", "", 200},
	{"GET", "/readyz", "", 200},
	{"GET", "/readyz/ping", "", 200},
	{"GET", "/apis/stable.example.com/v1/sprockets", "", 404},
}

// TestPatterns: a host that mounts the server at its Patterns, next to
// its own handlers, has every API request answered by the server and
// keeps every other path.
func TestPatterns(t *testing.T) {
	ts := hostMux(t, func(mux *http.ServeMux, srv *apiserver.Server) {
		for _, p := range srv.Patterns() {
			mux.Handle(p, srv)
		}
	})
	for _, c := range apiRequests {
		r := do(t, ts, c.method, c.path, "application/json", c.body)
		if r.code != c.code {
			t.Errorf("%s %s: %d, want %d from the server: %s", c.method, c.path, r.code, c.code, r.body)
		}
	}
	for _, p := range []string{"/", "/metrics", "/ui/index.html", "/apisx", "/openapi/v2", "/debug/pprof/"} {
		if r := do(t, ts, "GET", p, "", ""); r.code != http.StatusTeapot {
			t.Errorf("GET %s: %d, want the host's 418", p, r.code)
		}
	}
}

// TestStripPrefix: under http.StripPrefix the server answers below the
// prefix, and the paths it names in its responses work when a client adds
// the prefix to them, as client-go adds its server URL's path.
func TestStripPrefix(t *testing.T) {
	const prefix = "/kapi"
	ts := hostMux(t, func(mux *http.ServeMux, srv *apiserver.Server) {
		mux.Handle(prefix+"/", http.StripPrefix(prefix, srv))
	})
	for _, c := range apiRequests {
		r := do(t, ts, c.method, prefix+c.path, "application/json", c.body)
		if r.code != c.code {
			t.Errorf("%s %s%s: %d, want %d: %s", c.method, prefix, c.path, r.code, c.code, r.body)
		}
	}
	if r := do(t, ts, "GET", "/api", "", ""); r.code != http.StatusTeapot {
		t.Errorf("GET /api outside the prefix: %d, want the host's 418", r.code)
	}

	r := do(t, ts, "GET", prefix+"/openapi/v3", "", "")
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(r.body, &index); err != nil || len(index.Paths) == 0 {
		t.Fatalf("OpenAPI index: %v: %s", err, r.body)
	}
	for gv, p := range index.Paths {
		if !strings.HasPrefix(p.ServerRelativeURL, "/openapi/v3/") {
			t.Errorf("%s: serverRelativeURL %q is not relative to the server's root", gv, p.ServerRelativeURL)
			continue
		}
		doc := do(t, ts, "GET", prefix+p.ServerRelativeURL, "", "")
		var d struct {
			OpenAPI string `json:"openapi"`
		}
		if doc.code != http.StatusOK || json.Unmarshal(doc.body, &d) != nil || d.OpenAPI == "" {
			t.Errorf("%s: GET %s%s: %d %.200s", gv, prefix, p.ServerRelativeURL, doc.code, doc.body)
		}
	}
}

// TestAuditUnderPathPrefix: the audit event of a request to a server
// mounted under a stripped prefix records the URI the client sent, as
// kube-apiserver records the request's URI, not the path the server
// routes on.
func TestAuditUnderPathPrefix(t *testing.T) {
	const prefix = "/kapi"
	var log bytes.Buffer
	srv := apiserver.New(apiserver.Options{Audit: audit.NewLogger(&log, nil)})
	t.Cleanup(srv.Close)
	srv.Register(widgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(prefix+"/", http.StripPrefix(prefix, srv))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)

	uri := prefix + widgetsPath + "?limit=5"
	if r := do(t, ts, "GET", uri, "", ""); r.code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", uri, r.code, r.body)
	}
	var got []string
	for _, line := range bytes.Split(bytes.TrimSpace(log.Bytes()), []byte("\n")) {
		var ev audit.Event
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		got = append(got, ev.RequestURI)
		if ev.RequestURI != uri {
			t.Errorf("%s event: requestURI %q, want %q", ev.Stage, ev.RequestURI, uri)
		}
	}
	if len(got) == 0 {
		t.Fatal("no audit events")
	}
}
