package watch_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

var ctx = context.Background()

func TestGet(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{FreshnessTimeout: 50 * time.Millisecond})
	rev := put(t, s, key(1), "a")
	if _, err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		key     string
		opts    resourceversion.Get
		found   bool
		wantErr func(error) bool
	}{
		{name: "most recent", key: key(1), opts: resourceversion.Get{Semantics: resourceversion.MostRecent}, found: true},
		{name: "any", key: key(1), opts: resourceversion.Get{Semantics: resourceversion.Any}, found: true},
		{name: "not older than", key: key(1), opts: resourceversion.Get{Semantics: resourceversion.NotOlderThan, Revision: rev}, found: true},
		{name: "missing", key: key(2), opts: resourceversion.Get{Semantics: resourceversion.MostRecent}},
		{name: "too large", key: key(1), opts: resourceversion.Get{Semantics: resourceversion.NotOlderThan, Revision: rev + 100}, wantErr: status.IsTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := c.Get(ctx, tc.key, tc.opts)
			if tc.wantErr != nil {
				if !tc.wantErr(err) {
					t.Fatalf("error %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (res.Entry != nil) != tc.found || res.Revision < rev {
				t.Fatalf("got %+v", res)
			}
			if tc.found && (string(res.Entry.KV.Value) != "a" || res.Entry.KV.ModRevision != rev) {
				t.Fatalf("entry %+v", res.Entry.KV)
			}
		})
	}
}

// TestTooLargeMessage checks the 504 a NotOlderThan read times out with.
func TestTooLargeMessage(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{FreshnessTimeout: 20 * time.Millisecond})
	cur := c.Revision()
	_, err := c.Get(ctx, key(1), resourceversion.Get{Semantics: resourceversion.NotOlderThan, Revision: 1000})
	want := fmt.Sprintf("Timeout: Too large resource version: 1000, current: %d", cur)
	if st := status.FromError(err); st.Code != 504 || st.Message != want {
		t.Fatalf("get: %+v", st)
	}
	_, err = c.List(ctx, prefix, watch.ListOptions{List: resourceversion.List{Semantics: resourceversion.NotOlderThan, Revision: 1000}})
	if st := status.FromError(err); st.Code != 504 || st.Message != want {
		t.Fatalf("list: %+v", st)
	}
}

// TestConsistentReads writes from several goroutines; a MostRecent read
// made after a write returns must include it.
func TestConsistentReads(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{})
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				k := key(g*100 + i%7)
				rev := put(t, s, k, fmt.Sprint(i))
				res, err := c.Get(ctx, k, resourceversion.Get{Semantics: resourceversion.MostRecent})
				if err != nil || res.Entry == nil || res.Entry.KV.ModRevision != rev {
					t.Errorf("get after write at %d: %+v, %v", rev, res, err)
					return
				}
				l, err := c.List(ctx, prefix, watch.ListOptions{})
				if err != nil || l.Revision < rev || !containsRev(l.Entries, k, rev) {
					t.Errorf("list after write at %d: revision %d, %v", rev, l.Revision, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func containsRev(es []*watch.Entry, key string, rev int64) bool {
	for _, e := range es {
		if e.KV.Key == key {
			return e.KV.ModRevision == rev
		}
	}
	return false
}

// TestConsistentReadOtherPrefix: after a write elsewhere in the store, a
// consistent read waits for the progress notification that moves the
// cache past it.
func TestConsistentReadOtherPrefix(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{})
	rev := put(t, s, "/gadgets/g", "x")
	res, err := c.Get(ctx, key(1), resourceversion.Get{Semantics: resourceversion.MostRecent})
	if err != nil || res.Revision < rev {
		t.Fatalf("got %+v, %v; store at %d", res, err, rev)
	}
}

// TestNotOlderThanWaits holds the upstream back: a NotOlderThan read
// waits for the cache, and is served as soon as it catches up.
func TestNotOlderThanWaits(t *testing.T) {
	fs := &faultStore{Interface: newStore(t, memory.Options{})}
	c := newCache(t, fs, watch.Options{FreshnessTimeout: waitLong})
	fs.pause()
	rev := put(t, fs, key(1), "a")
	done := make(chan watch.GetResult)
	go func() {
		res, err := c.Get(ctx, key(1), resourceversion.Get{Semantics: resourceversion.NotOlderThan, Revision: rev})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case res := <-done:
		t.Fatalf("served before the cache caught up: %+v", res)
	case <-time.After(30 * time.Millisecond):
	}
	fs.resume()
	if res := <-done; res.Entry == nil || res.Revision < rev {
		t.Fatalf("got %+v", res)
	}
}

func TestNotReady(t *testing.T) {
	bs := &blockedStore{Interface: newStore(t, memory.Options{}), release: make(chan struct{})}
	c := watch.New(bs, prefix, watch.Options{FreshnessTimeout: 20 * time.Millisecond})
	defer c.Stop()
	defer close(bs.release)
	if _, err := c.Get(ctx, key(1), resourceversion.Get{Semantics: resourceversion.Any}); !status.IsTooManyRequests(err) {
		t.Fatalf("get before the first list: %v", err)
	}
	if _, err := c.Watch(ctx, prefix, 0, watch.WatchOptions{}); !status.IsTooManyRequests(err) {
		t.Fatalf("watch before the first list: %v", err)
	}
}

// blockedStore's List waits until release is closed.
type blockedStore struct {
	storage.Interface
	release chan struct{}
}

func (s *blockedStore) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResponse, error) {
	select {
	case <-s.release:
	case <-ctx.Done():
		return storage.ListResponse{}, ctx.Err()
	}
	return s.Interface.List(ctx, prefix, opts)
}

// TestListExact reads a past revision from a snapshot, and from the store
// once the snapshot has expired or predates the cache.
func TestListExact(t *testing.T) {
	fs := &faultStore{Interface: newStore(t, memory.Options{})}
	before := put(t, fs, key(99), "old")
	put(t, fs, key(98), "old")
	clock := newFakeClock()
	c := newCache(t, fs, watch.Options{Clock: clock})
	for i := 0; i < 10; i++ {
		put(t, fs, key(i), "v1")
	}
	r1, _ := c.Sync(ctx)
	for i := 0; i < 10; i += 2 {
		put(t, fs, key(i), "v2")
	}
	del(t, fs, key(1))
	del(t, fs, key(99))
	c.Sync(ctx)
	for _, tc := range []struct {
		name      string
		rev       int64
		step      time.Duration
		fromStore bool
	}{
		{name: "snapshot", rev: r1},
		{name: "current", rev: c.Revision()},
		{name: "before the cache", rev: before, fromStore: true},
		{name: "expired snapshot", rev: r1, step: watch.DefaultSnapshotTTL + time.Second, fromStore: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock.Step(tc.step)
			lists := fs.lists.Load()
			res, err := c.List(ctx, prefix, watch.ListOptions{List: resourceversion.List{Semantics: resourceversion.Exact, Revision: tc.rev}})
			if err != nil {
				t.Fatal(err)
			}
			if got := fs.lists.Load() > lists; got != tc.fromStore {
				t.Fatalf("read the store: %v", got)
			}
			want, _ := fs.Interface.List(ctx, prefix, storage.ListOptions{Revision: tc.rev})
			sameKVs(t, res, want)
		})
	}
}

func sameKVs(t *testing.T, res watch.ListResult, want storage.ListResponse) {
	t.Helper()
	if res.Revision != want.Revision || len(res.Entries) != len(want.KVs) {
		t.Fatalf("got %d entries at %d, want %d at %d", len(res.Entries), res.Revision, len(want.KVs), want.Revision)
	}
	for i, e := range res.Entries {
		if w := want.KVs[i]; e.KV.Key != w.Key || e.KV.ModRevision != w.ModRevision || string(e.KV.Value) != string(w.Value) {
			t.Fatalf("entry %d: %+v, want %+v", i, e.KV, w)
		}
	}
}

func TestListCompacted(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{SnapshotTTL: -1})
	put(t, s, key(1), "a")
	r1, _ := c.Sync(ctx)
	put(t, s, key(2), "b")
	rev, _ := c.Sync(ctx)
	if err := s.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	tok := resourceversion.ContinueAfter(r1, "default/w0001")
	for _, tc := range []struct {
		name string
		opts resourceversion.List
		msg  string
	}{
		{"exact", resourceversion.List{Semantics: resourceversion.Exact, Revision: r1}, "The resourceVersion for the provided list is too old."},
		{"continue", resourceversion.List{Semantics: resourceversion.Continuation, Revision: r1, Limit: 1, Continue: &tok}, "The provided continue parameter is too old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.List(ctx, prefix, watch.ListOptions{List: tc.opts})
			st := status.FromError(err)
			if !status.IsExpired(err) || !strings.HasPrefix(st.Message, tc.msg) {
				t.Fatalf("got %+v", st)
			}
			if tc.opts.Continue != nil && st.ListMeta.Continue == "" {
				t.Fatal("no continue token in the 410")
			}
		})
	}
}

// TestPagination pages through a list at one revision while writes
// happen, from snapshots and from the store, with and without a filter.
func TestPagination(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     watch.Options
		filter   bool
		maxLists int64 // store Lists allowed while paging
	}{
		{name: "snapshot", maxLists: 0},
		{name: "snapshot filtered", filter: true, maxLists: 0},
		{name: "store", opts: watch.Options{SnapshotTTL: -1}, maxLists: 1 << 20},
		{name: "store filtered", opts: watch.Options{SnapshotTTL: -1}, filter: true, maxLists: 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := &faultStore{Interface: newStore(t, memory.Options{HistoryWindow: 1 << 20})}
			for i := 0; i < 200; i++ {
				put(t, fs, key(i), fmt.Sprint(i))
			}
			c := newCache(t, fs, tc.opts)
			stop := churn(t, fs, 300)
			defer stop()
			var filter func(*watch.Entry) bool
			if tc.filter {
				filter = func(e *watch.Entry) bool { return e.KV.Value[len(e.KV.Value)-1]%3 == 0 }
			}
			lists := fs.lists.Load()
			between := func(i int) { put(t, fs, key(400+i), "between") }
			pages, rev := pageAll(t, c, 17, filter, between)
			if n := fs.lists.Load() - lists; n > tc.maxLists {
				t.Fatalf("%d store lists", n)
			}
			if cur, _ := fs.Revision(ctx); cur == rev {
				t.Fatal("no write happened while paging")
			}
			want, err := fs.Interface.List(ctx, prefix, storage.ListOptions{Revision: rev})
			if err != nil {
				t.Fatal(err)
			}
			var kvs []*storage.KeyValue
			for _, kv := range want.KVs {
				if filter == nil || filter(&watch.Entry{KV: kv}) {
					kvs = append(kvs, kv)
				}
			}
			sameKVs(t, watch.ListResult{Entries: pages, Revision: rev}, storage.ListResponse{KVs: kvs, Revision: rev})
		})
	}
}

// churn writes random changes under the prefix until stopped, about one
// every 20µs at most, so that the tests' stores keep their history.
func churn(t testing.TB, s storage.Interface, keys int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		rnd := rand.New(rand.NewSource(3))
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			if i%10 == 9 {
				time.Sleep(200 * time.Microsecond)
			}
			k := key(rnd.Intn(keys))
			if g, _ := s.Get(ctx, k, storage.GetOptions{}); g.KV != nil && rnd.Intn(4) == 0 {
				s.OptimisticDelete(ctx, k, g.KV.ModRevision, storage.DeleteOptions{})
			} else {
				var exp int64
				if g.KV != nil {
					exp = g.KV.ModRevision
				}
				s.OptimisticPut(ctx, k, []byte(fmt.Sprint(i)), exp, storage.PutOptions{})
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// pageAll lists the prefix in pages of limit the way a server does, and
// checks each page's Remaining.
// between(page) runs after each page.
func pageAll(t testing.TB, c *watch.Cache, limit int64, filter func(*watch.Entry) bool, between func(int)) ([]*watch.Entry, int64) {
	t.Helper()
	opts := watch.ListOptions{List: resourceversion.List{Semantics: resourceversion.MostRecent, Limit: limit}, Filter: filter}
	var all []*watch.Entry
	var rev int64
	for page := 0; ; page++ {
		res, err := c.List(ctx, prefix, opts)
		if err != nil {
			t.Fatal(err)
		}
		if rev == 0 {
			rev = res.Revision
		} else if res.Revision != rev {
			t.Fatalf("page at %d, first at %d", res.Revision, rev)
		}
		all = append(all, res.Entries...)
		if res.Remaining == 0 {
			return all, rev
		}
		between(page)
		if int64(len(res.Entries)) != limit {
			t.Fatalf("page of %d with %d remaining", len(res.Entries), res.Remaining)
		}
		last := res.Entries[len(res.Entries)-1].KV.Key
		tok := resourceversion.ContinueAfter(rev, strings.TrimPrefix(last, prefix))
		opts.List = resourceversion.List{Semantics: resourceversion.Continuation, Revision: rev, Limit: limit, Continue: &tok}
	}
}

// TestListPages checks page boundaries, Remaining, namespaces and
// inclusive start keys on a fixed collection, from the cache and from the
// store.
func TestListPages(t *testing.T) {
	s := newStore(t, memory.Options{})
	for i := 0; i < 10; i++ {
		put(t, s, fmt.Sprintf("%sa/w%d", prefix, i), "x")
		put(t, s, fmt.Sprintf("%sb/w%d", prefix, i), "y")
	}
	cached := newCache(t, s, watch.Options{})
	uncached := newCache(t, s, watch.Options{SnapshotTTL: -1})
	rev, _ := cached.Sync(ctx)
	put(t, s, prefix+"a/w0", "changed") // makes rev a past revision
	cached.Sync(ctx)
	uncached.Sync(ctx)
	tok := func(start string) *resourceversion.ContinueToken {
		return &resourceversion.ContinueToken{Revision: rev, StartKey: start}
	}
	for _, tc := range []struct {
		name      string
		prefix    string
		limit     int64
		cont      *resourceversion.ContinueToken
		first     string
		n         int
		remaining int64
	}{
		{name: "all", prefix: prefix, first: prefix + "a/w0", n: 20},
		{name: "namespace", prefix: prefix + "a/", first: prefix + "a/w0", n: 10},
		{name: "first page", prefix: prefix, limit: 5, first: prefix + "a/w0", n: 5, remaining: 15},
		{name: "exclusive start", prefix: prefix, limit: 5, cont: tok("a/w4\x00"), first: prefix + "a/w5", n: 5, remaining: 10},
		{name: "inclusive start", prefix: prefix, limit: 5, cont: tok("a/w4"), first: prefix + "a/w4", n: 5, remaining: 11},
		{name: "last page", prefix: prefix, limit: 5, cont: tok("b/w5"), first: prefix + "b/w5", n: 5},
		{name: "past the end", prefix: prefix, limit: 5, cont: tok("c"), n: 0},
		{name: "namespace page", prefix: prefix + "b/", limit: 3, cont: tok("w2\x00"), first: prefix + "b/w3", n: 3, remaining: 4},
		{name: "one key", prefix: prefix + "b/w3", first: prefix + "b/w3", n: 1},
	} {
		for name, c := range map[string]*watch.Cache{"cache": cached, "store": uncached} {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				opts := resourceversion.List{Semantics: resourceversion.Exact, Revision: rev, Limit: tc.limit}
				if tc.cont != nil {
					opts = resourceversion.List{Semantics: resourceversion.Continuation, Revision: rev, Limit: tc.limit, Continue: tc.cont}
				}
				res, err := c.List(ctx, tc.prefix, watch.ListOptions{List: opts})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Entries) != tc.n || res.Remaining != tc.remaining || res.Revision != rev {
					t.Fatalf("%d entries, %d remaining at %d", len(res.Entries), res.Remaining, res.Revision)
				}
				if tc.n > 0 && res.Entries[0].KV.Key != tc.first {
					t.Fatalf("first %s", res.Entries[0].KV.Key)
				}
			})
		}
	}
}

func TestOutsidePrefix(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{})
	if _, err := c.Get(ctx, "/gadgets/x", resourceversion.Get{}); err == nil {
		t.Error("get outside the prefix")
	}
	if _, err := c.List(ctx, "/gadgets/", watch.ListOptions{}); err == nil {
		t.Error("list outside the prefix")
	}
	if _, err := c.Watch(ctx, "/gadgets/", 0, watch.WatchOptions{}); err == nil {
		t.Error("watch outside the prefix")
	}
}
