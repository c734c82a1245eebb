package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// holdingStore is a store whose watches can be held: while held, their
// responses wait, so a watch cache on the store stays behind it, as a
// write flood can hold it. It hides the store's RequestProgress.
type holdingStore struct {
	storage.Interface
	mu   sync.Mutex
	gate chan struct{} // closed while not held
}

func newHoldingStore() *holdingStore {
	s := &holdingStore{Interface: memory.New(memory.Options{}), gate: make(chan struct{})}
	close(s.gate)
	return s
}

// hold holds the watches' responses until release.
func (s *holdingStore) hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gate = make(chan struct{})
}

func (s *holdingStore) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.gate:
	default:
		close(s.gate)
	}
}

func (s *holdingStore) open() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gate
}

func (s *holdingStore) Watch(ctx context.Context, prefix string, opts storage.WatchOptions) <-chan storage.WatchResponse {
	in := s.Interface.Watch(ctx, prefix, opts)
	out := make(chan storage.WatchResponse)
	go func() {
		defer close(out)
		for resp := range in {
			select {
			case <-s.open():
			case <-ctx.Done():
				return
			}
			select {
			case out <- resp:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// consistentReads is an Observer that counts consistent reads.
type consistentReads struct {
	mu    sync.Mutex
	calls map[[2]bool]int // by {fallback, success}
}

func (o *consistentReads) ObserveRequest(*apiserver.RequestRecord)           {}
func (o *consistentReads) ObserveInflight(string, int)                       {}
func (o *consistentReads) ObserveLongRunning(*apiserver.RequestLabels, int)  {}
func (o *consistentReads) ObserveWatchers(string, string, string, int)       {}
func (o *consistentReads) ObserveWatchEvent(string, string, string, int)     {}
func (o *consistentReads) ObserveResources(func() []apiserver.ResourceStats) {}

func (o *consistentReads) ObserveConsistentRead(group, resource string, fallback, success bool) {
	if group != "stable.example.com" || resource != "widgets" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls[[2]bool{fallback, success}]++
}

func (o *consistentReads) count(fallback, success bool) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.calls[[2]bool{fallback, success}]
}

// TestConsistentReadsFallBackToTheStore holds the watch cache behind the
// store after a write: a get and a list without resourceVersion answer
// 200 with the written object, read from the store, and are counted as
// fallbacks; a get of the written resourceVersion still times out with
// kube-apiserver's 504, since only consistent reads fall back.
func TestConsistentReadsFallBackToTheStore(t *testing.T) {
	store := newHoldingStore()
	obs := &consistentReads{calls: map[[2]bool]int{}}
	srv := apiserver.New(apiserver.Options{Storage: store, Observer: obs,
		WatchCache: apiserver.WatchCacheOptions{FreshnessTimeout: 50 * time.Millisecond}})
	srv.Register(widgetKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	t.Cleanup(store.release)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	createWidget(t, ts, "w1", `{"replicas":1}`)
	if r := do(t, ts, "GET", widgetsPath+"/w1", "", ""); r.code != http.StatusOK {
		t.Fatalf("GET before holding: %d %s", r.code, r.body)
	}
	if n := obs.count(false, true); n != 1 {
		t.Fatalf("consistent reads served by the cache: %d, want 1", n)
	}

	store.hold()
	r := do(t, ts, "PATCH", widgetsPath+"/w1", "application/merge-patch+json", `{"spec":{"replicas":5}}`)
	if r.code != http.StatusOK {
		t.Fatalf("PATCH: %d %s", r.code, r.body)
	}
	rv := decodeWidget(t, r).ResourceVersion
	writeRV, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		code       int
	}{
		{"consistent get", widgetsPath + "/w1", http.StatusOK},
		{"consistent list", widgetsPath, http.StatusOK},
		{"consistent list page", widgetsPath + "?limit=1", http.StatusOK},
		{"get not older than the write", widgetsPath + "/w1?resourceVersion=" + rv, http.StatusGatewayTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := do(t, ts, "GET", tc.path, "", "")
			if r.code != tc.code {
				t.Fatalf("%d %s, want %d", r.code, r.body, tc.code)
			}
			if tc.code != http.StatusOK {
				return
			}
			w := decodeWidget(t, r)
			if w.Kind == "WidgetList" {
				var l struct {
					Metadata struct{ ResourceVersion string }
					Items    []widget
				}
				if err := json.Unmarshal(r.body, &l); err != nil || len(l.Items) != 1 {
					t.Fatalf("list %s: %v", r.body, err)
				}
				if listRV, _ := strconv.ParseInt(l.Metadata.ResourceVersion, 10, 64); listRV < writeRV {
					t.Errorf("list at %s, before the write at %s", l.Metadata.ResourceVersion, rv)
				}
				w = l.Items[0]
			}
			if w.ResourceVersion != rv || w.Spec.Replicas == nil || *w.Spec.Replicas != 5 {
				t.Errorf("got %s, want the patched widget at resourceVersion %s", r.body, rv)
			}
		})
	}
	if n := obs.count(true, true); n != 3 {
		t.Errorf("consistent reads served by the store: %d, want 3", n)
	}
}
