package watch

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// heldStore is a memory store whose watch responses can be held back and
// whose progress requests are counted.
type heldStore struct {
	*memory.Store
	asked atomic.Int32
	mu    sync.Mutex
	gate  chan struct{} // while not nil, watches forward nothing
}

func (h *heldStore) RequestProgress(ctx context.Context) error {
	h.asked.Add(1)
	return h.Store.RequestProgress(ctx)
}

func (h *heldStore) hold() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gate = make(chan struct{})
}

func (h *heldStore) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.gate)
	h.gate = nil
}

func (h *heldStore) Watch(ctx context.Context, prefix string, opts storage.WatchOptions) <-chan storage.WatchResponse {
	in := h.Store.Watch(ctx, prefix, opts)
	out := make(chan storage.WatchResponse)
	go func() {
		defer close(out)
		for resp := range in {
			h.mu.Lock()
			gate := h.gate
			h.mu.Unlock()
			if gate != nil {
				select {
				case <-gate:
				case <-ctx.Done():
					return
				}
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

// TestConsistentReadNudges: a consistent read of a cache that has just
// applied an event of its own waits for its next one rather than asking
// every watch of the store for progress at once; only a wait past the
// grace asks. A cache with no recent event asks at once.
func TestConsistentReadNudges(t *testing.T) {
	ctx := context.Background()
	mostRecent := ListOptions{List: resourceversion.List{Semantics: resourceversion.MostRecent}}
	for _, tc := range []struct {
		name      string
		grace     time.Duration
		recent    bool   // the cache applied an event just before
		writeTo   string // the write the read must see
		wantAsked bool
	}{
		{"own event on its way", time.Hour, true, "/widgets/b", false},
		{"write elsewhere, past the grace", time.Millisecond, true, "/other/x", true},
		{"write elsewhere, idle cache", time.Hour, false, "/other/x", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &heldStore{Store: memory.New(memory.Options{ProgressInterval: time.Hour})}
			defer h.Close()
			c := New(h, "/widgets/", Options{FreshnessTimeout: 10 * time.Second})
			defer c.Stop()
			c.grace = tc.grace
			if err := c.Ready(ctx); err != nil {
				t.Fatal(err)
			}
			if tc.recent {
				rev := writeKey(t, h, "/widgets/a")
				if _, err := c.waitFor(ctx, rev); err != nil {
					t.Fatal(err)
				}
			}
			if tc.name == "own event on its way" {
				h.hold()
				time.AfterFunc(20*time.Millisecond, h.release)
			}
			rev := writeKey(t, h, tc.writeTo)
			res, err := c.List(ctx, "/widgets/", mostRecent)
			if err != nil {
				t.Fatal(err)
			}
			if res.Revision < rev {
				t.Fatalf("read at %d, before the write at %d", res.Revision, rev)
			}
			if asked := h.asked.Load() > 0; asked != tc.wantAsked {
				t.Fatalf("progress asked: %v, want %v", asked, tc.wantAsked)
			}
		})
	}
}

func writeKey(t *testing.T, s storage.Interface, key string) int64 {
	t.Helper()
	resp, err := s.OptimisticPut(context.Background(), key, []byte("v"), 0, storage.PutOptions{})
	if err != nil || !resp.Succeeded {
		t.Fatalf("put %s: %+v, %v", key, resp, err)
	}
	return resp.Revision
}
