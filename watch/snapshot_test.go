package watch_test

import (
	"fmt"
	"testing"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// TestListExactWindow reads every revision of the window exactly, whole and
// filtered, and checks each against the store's list at that revision:
// past states are rebuilt from the window's records, so none of these
// reads goes to the store.
func TestListExactWindow(t *testing.T) {
	fs := &faultStore{Interface: newStore(t, memory.Options{})}
	for i := 0; i < 40; i++ {
		put(t, fs, key(i), "before")
	}
	c := newCache(t, fs, watch.Options{})
	first, _ := c.Sync(ctx)
	for i := 0; i < 300; i++ {
		k := key(i * 7 % 60)
		g, _ := fs.Get(ctx, k, storage.GetOptions{})
		if g.KV != nil && i%5 == 0 {
			del(t, fs, k)
		} else {
			put(t, fs, k, fmt.Sprint(i))
		}
	}
	last, _ := c.Sync(ctx)
	even := func(e *watch.Entry) bool { return e.KV.Value[len(e.KV.Value)-1]%2 == 0 }
	lists := fs.lists.Load()
	for rev := first; rev <= last; rev++ {
		want, err := fs.Interface.List(ctx, prefix, storage.ListOptions{Revision: rev})
		if err != nil {
			t.Fatal(err)
		}
		exact := resourceversion.List{Semantics: resourceversion.Exact, Revision: rev}
		res, err := c.List(ctx, prefix, watch.ListOptions{List: exact})
		if err != nil {
			t.Fatal(err)
		}
		sameKVs(t, res, want)
		res, err = c.List(ctx, prefix, watch.ListOptions{List: exact, Filter: even})
		if err != nil {
			t.Fatal(err)
		}
		var kvs []*storage.KeyValue
		for _, kv := range want.KVs {
			if even(&watch.Entry{KV: kv}) {
				kvs = append(kvs, kv)
			}
		}
		sameKVs(t, res, storage.ListResponse{KVs: kvs, Revision: rev})
	}
	if n := fs.lists.Load() - lists; n != 0 {
		t.Fatalf("%d reads went to the store", n)
	}
}

// TestListExactAfterEviction reads the oldest revisions a cache still
// serves once the window has dropped records: its base revision comes from
// memory, older ones from the store.
func TestListExactAfterEviction(t *testing.T) {
	fs := &faultStore{Interface: newStore(t, memory.Options{})}
	c := newCache(t, fs, watch.Options{EventWindow: 10})
	var revs []int64
	for i := 0; i < 30; i++ {
		revs = append(revs, put(t, fs, key(i%4), fmt.Sprint(i)))
	}
	c.Sync(ctx)
	for _, tc := range []struct {
		name      string
		rev       int64
		fromStore bool
	}{
		{name: "base", rev: revs[19]},
		{name: "in the window", rev: revs[25]},
		{name: "before the base", rev: revs[18], fromStore: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
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
