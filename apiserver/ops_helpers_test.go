package apiserver_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/auth"
)

// withTestUser puts the user named by the X-Test-User header (groups from
// X-Test-Group) on the request's context, as an authenticating
// middleware of the host would.
func withTestUser(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if name := r.Header.Get("X-Test-User"); name != "" {
			u := &auth.User{Name: name, Groups: r.Header.Values("X-Test-Group")}
			r = r.WithContext(auth.WithUser(r.Context(), u))
		}
		h.ServeHTTP(w, r)
	})
}

// startOps serves a server built with opts and the widget kind behind
// withTestUser.
func startOps(t testing.TB, opts apiserver.Options) (*apiserver.Server, *httptest.Server) {
	t.Helper()
	srv := apiserver.New(opts)
	srv.Register(widgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(withTestUser(srv))
	t.Cleanup(ts.Close)
	t.Cleanup(srv.Close)
	return srv, ts
}

// gate is a mutating admission function that holds every write of an
// object whose name starts with "block" until release, telling entered
// about each.
type gate struct {
	entered chan string
	release chan struct{}
	once    sync.Once

	mu    sync.Mutex
	order []string // every write admitted, in order
}

func newGate() *gate {
	return &gate{entered: make(chan string, 100), release: make(chan struct{})}
}

func (g *gate) admit(ctx context.Context, req *apiserver.AdmissionRequest) error {
	g.mu.Lock()
	g.order = append(g.order, req.Name)
	g.mu.Unlock()
	if !strings.HasPrefix(req.Name, "block") {
		return nil
	}
	g.entered <- req.Name
	<-g.release
	return nil
}

func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

// waitEntered waits for n writes to reach the gate.
func (g *gate) waitEntered(t testing.TB, n int) {
	t.Helper()
	for range n {
		select {
		case <-g.entered:
		case <-time.After(10 * time.Second):
			t.Fatal("no write reached admission")
		}
	}
}

// post creates a widget as user (groups optional) and returns the response.
func post(t testing.TB, ts *httptest.Server, query, name, user string, groups ...string) response {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json", "X-Test-User": user}
	req, err := http.NewRequest("POST", ts.URL+widgetsPath+query,
		strings.NewReader(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"`+name+`"}}`))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	for _, g := range groups {
		req.Header.Add("X-Test-Group", g)
	}
	return sendReq(t, req)
}

func sendReq(t testing.TB, req *http.Request) response {
	t.Helper()
	resp, err := (&http.Client{Transport: testTransport}).Do(req)
	if err != nil {
		t.Error(err)
		return response{}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Error(err)
	}
	return response{code: resp.StatusCode, header: resp.Header, body: b, close: resp.Close}
}
