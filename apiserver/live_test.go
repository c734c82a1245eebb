package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

const liveThings = "/apis/dyn.example.com/v1/namespaces/default/things"

func liveKind(t testing.TB, shortName string) apiserver.Kind {
	t.Helper()
	sch, err := schema.FromOpenAPI([]byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer","maximum":10}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	return apiserver.Kind{
		Group: "dyn.example.com", Version: "v1", Kind: "Thing", Resource: "things", Namespaced: true,
		ShortNames: []string{shortName}, Schema: sch,
		New: func() meta.Object { return &meta.Unstructured{} },
	}
}

func liveServer(t *testing.T) (*apiserver.Server, *httptest.Server) {
	t.Helper()
	srv := apiserver.New(apiserver.Options{})
	if err := srv.Register(widgetKind()).Register(gadgetKind()).Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return srv, ts
}

func aggregatedETag(t *testing.T, ts *httptest.Server) (string, string) {
	t.Helper()
	r := send(t, ts.URL+"/apis", "GET", map[string]string{"Accept": "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}, nil)
	if r.code != http.StatusOK {
		t.Fatalf("/apis: %d %s", r.code, r.body)
	}
	return r.header.Get("Etag"), string(r.body)
}

// A kind installed on a serving server is served everywhere at once:
// its paths, legacy and aggregated discovery (with a new ETag) and
// OpenAPI v3; removing it takes it out of all of them.
func TestInstallServesEverywhere(t *testing.T) {
	srv, ts := liveServer(t)
	etag0, _ := aggregatedETag(t, ts)
	if r := do(t, ts, "GET", liveThings, "", ""); r.code != http.StatusNotFound {
		t.Fatalf("before Install: %d", r.code)
	}
	if err := srv.Install(liveKind(t, "th")); err != nil {
		t.Fatal(err)
	}
	etag1, agg := aggregatedETag(t, ts)
	if etag1 == etag0 || !strings.Contains(agg, `"dyn.example.com"`) || !strings.Contains(agg, `"things"`) {
		t.Fatalf("aggregated discovery after Install: etag %q→%q %s", etag0, etag1, agg)
	}
	if r := do(t, ts, "GET", "/apis/dyn.example.com/v1", "", ""); r.code != http.StatusOK || !strings.Contains(string(r.body), `"shortNames":["th"]`) {
		t.Fatalf("legacy discovery: %d %s", r.code, r.body)
	}
	if r := do(t, ts, "GET", "/apis", "", ""); !strings.Contains(string(r.body), `"name":"dyn.example.com"`) {
		t.Fatalf("group list: %s", r.body)
	}
	if r := do(t, ts, "GET", "/openapi/v3/apis/dyn.example.com/v1", "", ""); r.code != http.StatusOK || !strings.Contains(string(r.body), "com.example.dyn.v1.Thing") {
		t.Fatalf("openapi: %d %.300s", r.code, r.body)
	}
	r := do(t, ts, "POST", liveThings, "application/json", `{"apiVersion":"dyn.example.com/v1","kind":"Thing","metadata":{"name":"a"},"spec":{"size":3}}`)
	if r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	r = do(t, ts, "POST", liveThings, "application/json", `{"apiVersion":"dyn.example.com/v1","kind":"Thing","metadata":{"name":"b"},"spec":{"size":30}}`)
	if r.code != http.StatusUnprocessableEntity {
		t.Fatalf("create against the schema: %d %s", r.code, r.body)
	}

	if err := srv.Uninstall("dyn.example.com", "things"); err != nil {
		t.Fatal(err)
	}
	etag2, agg := aggregatedETag(t, ts)
	if etag2 == etag1 || strings.Contains(agg, "dyn.example.com") {
		t.Fatalf("aggregated discovery after Uninstall: %s", agg)
	}
	for _, p := range []string{liveThings, "/apis/dyn.example.com/v1", "/apis/dyn.example.com", "/openapi/v3/apis/dyn.example.com/v1"} {
		if r := do(t, ts, "GET", p, "", ""); r.code != http.StatusNotFound {
			t.Errorf("GET %s after Uninstall: %d %s", p, r.code, r.body)
		}
	}
	if r := do(t, ts, "GET", "/apis", "", ""); strings.Contains(string(r.body), "dyn.example.com") {
		t.Errorf("group list after Uninstall: %s", r.body)
	}
}

// Install refuses what Register would refuse, and kinds colliding with
// registered ones; a refused kind is not served at all.
func TestInstallRefuses(t *testing.T) {
	tests := []struct {
		name    string
		kind    func(k *apiserver.Kind)
		wantErr string
	}{
		{"registered resource", func(k *apiserver.Kind) { k.Group, k.Kind, k.Resource = "stable.example.com", "Widget2", "widgets" },
			"resource widgets.stable.example.com is already registered"},
		{"registered kind", func(k *apiserver.Kind) { k.Group, k.Kind = "stable.example.com", "Widget" },
			"kind Widget is already registered in stable.example.com/v1"},
		{"bad version", func(k *apiserver.Kind) { k.Version = "v1.0" }, `version "v1.0" is not a DNS-1035 label`},
		{"bad resource", func(k *apiserver.Kind) { k.Resource = "Things" }, `resource "Things" is not a lower-case DNS label`},
		{"rules without an engine", func(k *apiserver.Kind) {
			k.Schema.Properties["spec"].XValidations = []schema.Rule{{Rule: "self.size > 1"}}
		}, "rule"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, ts := liveServer(t)
			before := do(t, ts, "GET", "/apis", "", "").body
			k := liveKind(t, "th")
			tc.kind(&k)
			err := srv.CheckKind(k)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("CheckKind: %v, want %q", err, tc.wantErr)
			}
			err = srv.Install(k)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Install: %v, want %q", err, tc.wantErr)
			}
			if after := do(t, ts, "GET", "/apis", "", "").body; string(after) != string(before) {
				t.Errorf("discovery changed by a refused kind:\n%s\n%s", before, after)
			}
			if r := do(t, ts, "GET", widgetsPath, "", ""); r.code != http.StatusOK || !strings.Contains(string(r.body), "WidgetList") {
				t.Errorf("widgets after a refused Install: %d %s", r.code, r.body)
			}
		})
	}
}

func TestUninstallRefusesRegistered(t *testing.T) {
	srv, ts := liveServer(t)
	if err := srv.Uninstall("stable.example.com", "widgets"); err == nil || !strings.Contains(err.Error(), "registered, not installed") {
		t.Fatalf("Uninstall of a registered kind: %v", err)
	}
	if err := srv.Uninstall("dyn.example.com", "things"); err == nil || !strings.Contains(err.Error(), "not served") {
		t.Fatalf("Uninstall of an unknown kind: %v", err)
	}
	if r := do(t, ts, "GET", widgetsPath, "", ""); r.code != http.StatusOK {
		t.Fatalf("widgets: %d", r.code)
	}
}

// Installing again replaces the kind for later requests, keeping its
// objects; watches of other kinds stay open through Install and
// Uninstall.
func TestInstallReplacesAndKeepsOtherWatches(t *testing.T) {
	srv, ts := liveServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+widgetsPath+"?watch=true", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			events <- sc.Text()
		}
		close(events)
	}()

	if err := srv.Install(liveKind(t, "th")); err != nil {
		t.Fatal(err)
	}
	if r := do(t, ts, "POST", liveThings, "application/json", `{"apiVersion":"dyn.example.com/v1","kind":"Thing","metadata":{"name":"a"},"spec":{"size":3}}`); r.code != http.StatusCreated {
		t.Fatalf("create: %d %s", r.code, r.body)
	}
	if err := srv.Install(liveKind(t, "tg")); err != nil {
		t.Fatalf("replacing: %v", err)
	}
	if r := do(t, ts, "GET", "/apis/dyn.example.com/v1", "", ""); !strings.Contains(string(r.body), `"shortNames":["tg"]`) {
		t.Fatalf("discovery after replacing: %s", r.body)
	}
	if r := do(t, ts, "GET", liveThings+"/a", "", ""); r.code != http.StatusOK || !strings.Contains(string(r.body), `"size":3`) {
		t.Fatalf("object after replacing: %d %s", r.code, r.body)
	}
	if err := srv.Uninstall("dyn.example.com", "things"); err != nil {
		t.Fatal(err)
	}
	createWidget(t, ts, "after", "")
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the widget watch ended")
			}
			if strings.Contains(ev, `"name":"after"`) {
				return
			}
		case <-deadline:
			t.Fatal("no event for the widget created after Uninstall")
		}
	}
}

// Install and Uninstall run safely beside requests: each request sees the
// kind either whole or not at all.
func TestInstallConcurrentWithRequests(t *testing.T) {
	srv, ts := liveServer(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				r := do(t, ts, "POST", liveThings, "application/json",
					fmt.Sprintf(`{"apiVersion":"dyn.example.com/v1","kind":"Thing","metadata":{"name":"t%d-%d"}}`, i, n))
				if r.code != http.StatusCreated && r.code != http.StatusNotFound {
					t.Errorf("create during Install/Uninstall: %d %s", r.code, r.body)
					return
				}
				if r.code == http.StatusNotFound {
					var st meta.Status
					if json.Unmarshal(r.body, &st) != nil || st.Reason != meta.StatusReasonNotFound {
						t.Errorf("404 is not a NotFound Status: %s", r.body)
						return
					}
				}
				_ = do(t, ts, "GET", "/apis", "", "")
			}
		}()
	}
	for range 20 {
		if err := srv.Install(liveKind(t, "th")); err != nil {
			t.Error(err)
		}
		if err := srv.Uninstall("dyn.example.com", "things"); err != nil {
			t.Error(err)
		}
	}
	close(stop)
	wg.Wait()
}

// Aggregated discovery carries an ETag that clients revalidate with
// If-None-Match, and that changes with the kinds served.
func TestAggregatedDiscoveryETag(t *testing.T) {
	srv, ts := liveServer(t)
	const accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	etag, _ := aggregatedETag(t, ts)
	if etag == "" {
		t.Fatal("no ETag")
	}
	r := send(t, ts.URL+"/apis", "GET", map[string]string{"Accept": accept, "If-None-Match": etag}, nil)
	if r.code != http.StatusNotModified || len(r.body) != 0 {
		t.Fatalf("revalidation: %d %s", r.code, r.body)
	}
	if err := srv.Install(liveKind(t, "th")); err != nil {
		t.Fatal(err)
	}
	r = send(t, ts.URL+"/apis", "GET", map[string]string{"Accept": accept, "If-None-Match": etag}, nil)
	if r.code != http.StatusOK || r.header.Get("Etag") == etag {
		t.Fatalf("revalidation after Install: %d, etag %q", r.code, r.header.Get("Etag"))
	}
}
