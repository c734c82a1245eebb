package watch_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// Options.Transform gives the values the cache keeps, for values loaded,
// changed and read back at a past revision, once per value version.
func TestTransform(t *testing.T) {
	s := newStore(t, memory.Options{})
	before := put(t, s, key(1), "old")
	var calls atomic.Int64
	upper := func(kv *storage.KeyValue) *storage.KeyValue {
		calls.Add(1)
		if strings.HasPrefix(string(kv.Value), "keep") {
			return kv
		}
		out := *kv
		out.Value = []byte(strings.ToUpper(string(kv.Value)))
		return &out
	}
	c := newCache(t, s, watch.Options{Transform: upper})
	w, err := c.Watch(ctx, prefix, before, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	after := put(t, s, key(2), "new")
	put(t, s, key(3), "keep")
	if _, err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ev := <-w.Events()
	tests := []struct {
		name string
		got  *storage.KeyValue
		want string
	}{
		{"loaded", get(t, c, key(1)), "OLD"},
		{"changed", get(t, c, key(2)), "NEW"},
		{"kept as stored", get(t, c, key(3)), "keep"},
		{"watched", ev.Entry.KV, "NEW"},
	}
	for _, tc := range tests {
		if string(tc.got.Value) != tc.want {
			t.Errorf("%s: value %q, want %q", tc.name, tc.got.Value, tc.want)
		}
	}
	if ev.Entry.KV.ModRevision != after {
		t.Errorf("watched revision %d, want %d", ev.Entry.KV.ModRevision, after)
	}
	n := calls.Load()
	for range 3 {
		get(t, c, key(1))
	}
	if calls.Load() != n {
		t.Errorf("reads transformed again: %d calls, then %d", n, calls.Load())
	}
}

func get(t *testing.T, c *watch.Cache, k string) *storage.KeyValue {
	t.Helper()
	res, err := c.Get(ctx, k, resourceversion.Get{Semantics: resourceversion.Any})
	if err != nil || res.Entry == nil {
		t.Fatalf("get %s: %+v %v", k, res, err)
	}
	return res.Entry.KV
}
