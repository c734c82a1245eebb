package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// countingStore counts the reads of single keys that reach the store.
type countingStore struct {
	storage.Interface
	gets atomic.Int64
}

func (s *countingStore) Get(ctx context.Context, key string, opts storage.GetOptions) (storage.GetResponse, error) {
	s.gets.Add(1)
	return s.Interface.Get(ctx, key, opts)
}

// GET on /scale is served from the watch cache, as other reads are: it
// reads nothing from the store, sees the latest write, and takes
// resourceVersion as a get does.
func TestScaleGetServedFromCache(t *testing.T) {
	store := &countingStore{Interface: memory.New(memory.Options{})}
	srv := apiserver.New(apiserver.Options{Storage: store, WatchCache: apiserver.WatchCacheOptions{FreshnessTimeout: 100 * time.Millisecond}})
	srv.Register(widgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	createWidget(t, ts, "sc", `{"replicas":2}`)

	scaleOf := func(query string) (scaleBody, response) {
		t.Helper()
		r := do(t, ts, "GET", widgetsPath+"/sc/scale"+query, "", "")
		var sc scaleBody
		if r.code == http.StatusOK {
			if err := json.Unmarshal(r.body, &sc); err != nil {
				t.Fatalf("%v: %s", err, r.body)
			}
		}
		return sc, r
	}
	before := store.gets.Load()
	for _, q := range []string{"", "?resourceVersion=0", "?resourceVersion=1"} {
		if sc, r := scaleOf(q); r.code != http.StatusOK || sc.Spec.Replicas != 2 {
			t.Fatalf("GET scale%s: %d %s", q, r.code, r.body)
		}
	}
	if n := store.gets.Load() - before; n != 0 {
		t.Errorf("GET on /scale read the store %d times, want 0", n)
	}

	// A consistent read (no resourceVersion) sees the write just made.
	r := do(t, ts, "PATCH", widgetsPath+"/sc/scale", "application/merge-patch+json", `{"spec":{"replicas":7}}`)
	if r.code != http.StatusOK {
		t.Fatalf("PATCH scale: %d %s", r.code, r.body)
	}
	var patched scaleBody
	if err := json.Unmarshal(r.body, &patched); err != nil {
		t.Fatal(err)
	}
	sc, r := scaleOf("")
	if r.code != http.StatusOK || sc.Spec.Replicas != 7 || sc.Metadata.ResourceVersion != patched.Metadata.ResourceVersion {
		t.Errorf("GET scale after the write: %d %+v, want replicas 7 at resourceVersion %s", r.code, sc, patched.Metadata.ResourceVersion)
	}

	// resourceVersion is validated as for a get.
	if _, r := scaleOf("?resourceVersion=abc"); r.code != http.StatusBadRequest {
		t.Errorf("GET scale?resourceVersion=abc: %d %s, want 400", r.code, r.body)
	}
	// A resourceVersion the cache does not reach in time is a 504, as
	// for a get.
	if _, r := scaleOf("?resourceVersion=1000"); r.code != http.StatusGatewayTimeout {
		t.Errorf("GET scale?resourceVersion=1000: %d %s, want 504", r.code, r.body)
	}
}
