package watch_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// heldStore is a store whose watches deliver nothing until release is
// closed: a cache on it loads its first list, then stays at that
// revision however the store moves on, as a cache a write flood holds
// back does. It hides the store's RequestProgress.
type heldStore struct {
	storage.Interface
	release chan struct{}
}

func (s *heldStore) Watch(ctx context.Context, prefix string, opts storage.WatchOptions) <-chan storage.WatchResponse {
	in := s.Interface.Watch(ctx, prefix, opts)
	out := make(chan storage.WatchResponse)
	go func() {
		defer close(out)
		for resp := range in {
			select {
			case <-s.release:
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

// readCounts records Options.ConsistentRead's calls.
type readCounts struct {
	mu    sync.Mutex
	calls map[[2]bool]int // by {fallback, success}
}

func (r *readCounts) record(fallback, success bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[[2]bool{fallback, success}]++
}

func (r *readCounts) get(fallback, success bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[[2]bool{fallback, success}]
}

// TestConsistentReadFallback holds a cache behind the store and checks
// that consistent gets and lists are read from the store (the newest
// value, at the store's revision) while reads that name a revision keep
// their semantics: Any reads the stale cache, NotOlderThan and Exact of
// the newest revision time out with the 504.
func TestConsistentReadFallback(t *testing.T) {
	mem := newStore(t, memory.Options{})
	put(t, mem, key(1), "old")
	put(t, mem, key(2), "two")
	s := &heldStore{Interface: mem, release: make(chan struct{})}
	counts := &readCounts{calls: map[[2]bool]int{}}
	c := newCache(t, s, watch.Options{FreshnessTimeout: 20 * time.Millisecond, ConsistentRead: counts.record})
	newest := put(t, mem, key(1), "new")
	put(t, mem, key(3), "three")
	cur, err := mem.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.Revision() >= newest {
		t.Fatalf("the cache is at %d, not held behind %d", c.Revision(), newest)
	}
	mostRecent := resourceversion.Get{Semantics: resourceversion.MostRecent}
	for _, tc := range []struct {
		name string
		opts resourceversion.Get
		want string // the value read; "" for a 504
	}{
		{"consistent", mostRecent, "new"},
		{"any", resourceversion.Get{Semantics: resourceversion.Any}, "old"},
		{"not older than the newest", resourceversion.Get{Semantics: resourceversion.NotOlderThan, Revision: newest}, ""},
	} {
		t.Run("get "+tc.name, func(t *testing.T) {
			res, err := c.Get(ctx, key(1), tc.opts)
			checkRead(t, err, tc.want == "")
			if tc.want != "" && (res.Entry == nil || string(res.Entry.KV.Value) != tc.want) {
				t.Fatalf("got %+v", res.Entry)
			}
			if tc.opts.Semantics == resourceversion.MostRecent && res.Revision != cur {
				t.Fatalf("read at %d, want the store's %d", res.Revision, cur)
			}
		})
	}
	if res, err := c.Get(ctx, key(9), mostRecent); err != nil || res.Entry != nil {
		t.Fatalf("missing key: %+v, %v", res, err)
	}
	for _, tc := range []struct {
		name string
		opts resourceversion.List
		want []string // the values read in key order; nil for a 504
	}{
		{"consistent", resourceversion.List{}, []string{"new", "two", "three"}},
		{"consistent page", resourceversion.List{Limit: 2}, []string{"new", "two"}},
		{"continuation at the current revision", resourceversion.List{Semantics: resourceversion.Continuation,
			Continue: &resourceversion.ContinueToken{StartKey: "default/w0002"}}, []string{"two", "three"}},
		{"any", resourceversion.List{Semantics: resourceversion.Any}, []string{"old", "two"}},
		{"not older than the newest", resourceversion.List{Semantics: resourceversion.NotOlderThan, Revision: newest}, nil},
		{"exact at the newest", resourceversion.List{Semantics: resourceversion.Exact, Revision: newest, Limit: 1}, nil},
	} {
		t.Run("list "+tc.name, func(t *testing.T) {
			res, err := c.List(ctx, prefix, watch.ListOptions{List: tc.opts})
			checkRead(t, err, tc.want == nil)
			if got := values(res.Entries); tc.want != nil && !equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if tc.want != nil && tc.opts.Semantics != resourceversion.Any && res.Revision != cur {
				t.Fatalf("read at %d, want the store's %d", res.Revision, cur)
			}
		})
	}
	// The consistent reads above: 2 gets and 3 lists fell back.
	if fb, ok := counts.get(true, true), counts.get(false, true); fb != 5 || ok != 0 {
		t.Fatalf("consistent reads: %d fallbacks, %d from the cache; want 5 and 0", fb, ok)
	}
	close(s.release)
	if _, err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := c.Get(ctx, key(1), mostRecent); err != nil || string(res.Entry.KV.Value) != "new" {
		t.Fatalf("after catching up: %+v, %v", res, err)
	}
	if fb, ok := counts.get(true, true), counts.get(false, true); fb != 5 || ok != 1 {
		t.Fatalf("after catching up: %d fallbacks, %d from the cache; want 5 and 1", fb, ok)
	}
}

// checkRead fails unless err is the 504 Too large resource version when
// tooLarge is set, nil otherwise.
func checkRead(t *testing.T, err error, tooLarge bool) {
	t.Helper()
	if tooLarge {
		if st := status.FromError(err); st.Code != 504 || st.Details == nil || len(st.Details.Causes) != 1 {
			t.Fatalf("error %v, want the 504 Too large resource version", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
}

func values(es []*watch.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e.KV.Value)
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
