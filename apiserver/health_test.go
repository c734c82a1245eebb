package apiserver_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// TestHealthFormats checks kube-apiserver's formats: "ok", the verbose
// list, exclusions (with a warning for unknown names), per-check paths,
// and a failing check's 500 whose reason is withheld from the list but
// given on its own path.
func TestHealthFormats(t *testing.T) {
	var broken atomic.Bool
	mine := apiserver.HealthCheck{Name: "mine", Check: func(*http.Request) error {
		if broken.Load() {
			return errors.New("boom")
		}
		return nil
	}}
	_, ts := startOps(t, apiserver.Options{ReadinessChecks: []apiserver.HealthCheck{mine}})
	waitReady(t, ts.URL)
	cases := []struct {
		path string
		code int
		body string
	}{
		{"/livez", 200, "ok"},
		{"/healthz", 200, "ok"},
		{"/readyz", 200, "ok"},
		{"/livez?verbose", 200, "[+]ping ok\n[+]etcd ok\nlivez check passed\n"},
		{"/readyz?verbose", 200, "[+]ping ok\n[+]etcd ok\n[+]informer-sync ok\n[+]mine ok\n[+]shutdown ok\nreadyz check passed\n"},
		{"/healthz?verbose", 200, "[+]ping ok\n[+]etcd ok\n[+]informer-sync ok\n[+]mine ok\nhealthz check passed\n"},
		{"/readyz?verbose&exclude=etcd&exclude=nope&exclude=zzz", 200, "[+]ping ok\n[+]etcd excluded: ok\n[+]informer-sync ok\n[+]mine ok\n[+]shutdown ok\n" +
			"warn: some health checks cannot be excluded: no matches for \"nope\",\"zzz\"\nreadyz check passed\n"},
		{"/readyz/etcd", 200, "ok"},
		{"/livez/ping", 200, "ok"},
		{"/healthz/ping", 200, "ok"},
		{"/healthz/informer-sync", 200, "ok"},
		{"/livez/mine", 404, "404 page not found\n"},
		{"/readyz/nope", 404, "404 page not found\n"},
	}
	for _, c := range cases {
		checkGet(t, ts.URL+c.path, c.code, c.body)
	}
	broken.Store(true)
	checkGet(t, ts.URL+"/readyz", 500, "[+]ping ok\n[+]etcd ok\n[+]informer-sync ok\n[-]mine failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n")
	checkGet(t, ts.URL+"/readyz?exclude=mine", 200, "ok")
	checkGet(t, ts.URL+"/readyz/mine", 500, "internal server error: boom\n")
	checkGet(t, ts.URL+"/livez", 200, "ok") // a readiness check does not fail liveness
}

func checkGet(t *testing.T, url string, code int, body string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != code || string(b) != body {
		t.Errorf("GET %s: %d %q %v, want %d %q", url, resp.StatusCode, b, err, code, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("GET %s: Content-Type %q", url, ct)
	}
}

// waitReady polls /readyz until it answers 200.
func waitReady(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("never ready")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// flakyStore fails every call while down, and holds lists while held.
type flakyStore struct {
	storage.Interface
	down atomic.Bool
	held chan struct{}
}

var errDown = errors.New("connection refused")

func (f *flakyStore) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResponse, error) {
	select {
	case <-f.held:
	case <-ctx.Done():
		return storage.ListResponse{}, ctx.Err()
	}
	if f.down.Load() {
		return storage.ListResponse{}, errDown
	}
	return f.Interface.List(ctx, prefix, opts)
}

func (f *flakyStore) Revision(ctx context.Context) (int64, error) {
	if f.down.Load() {
		return 0, errDown
	}
	return f.Interface.Revision(ctx)
}

// TestReadiness: /readyz fails until every kind's watch cache has loaded,
// and while the store does not answer; /livez does not wait for the
// caches.
func TestReadiness(t *testing.T) {
	st := &flakyStore{Interface: memory.New(memory.Options{}), held: make(chan struct{})}
	_, ts := startOps(t, apiserver.Options{Storage: st})
	checkGet(t, ts.URL+"/readyz", 500, "[+]ping ok\n[+]etcd ok\n[-]informer-sync failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n")
	checkGet(t, ts.URL+"/readyz/informer-sync", 500, "internal server error: watch caches not synced: widgets.stable.example.com\n")
	checkGet(t, ts.URL+"/livez", 200, "ok")
	close(st.held)
	waitReady(t, ts.URL)
	st.down.Store(true)
	checkGet(t, ts.URL+"/readyz", 500, "[+]ping ok\n[-]etcd failed: reason withheld\n[+]informer-sync ok\n[+]shutdown ok\nreadyz check failed\n")
	checkGet(t, ts.URL+"/readyz/etcd", 500, "internal server error: connection refused\n")
	st.down.Store(false)
	checkGet(t, ts.URL+"/readyz", 200, "ok")
}
