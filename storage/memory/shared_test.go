package memory_test

import (
	"context"
	"testing"
	"unique"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// TestSharedPartKept: a value's shared part comes back with it wherever
// the value is read: a get, a get at a past revision, a list, and a
// watch event's value and previous value.
func TestSharedPartKept(t *testing.T) {
	s := newStore(t, memory.Options{})
	if !s.KeepsShared() {
		t.Fatal("the memory store does not keep shared parts")
	}
	ctx := context.Background()
	first, second := unique.Make("first part"), unique.Make("second part")
	w := s.Watch(ctx, "/w/", storage.WatchOptions{})
	one, err := s.OptimisticPut(ctx, "/w/a", []byte("one"), 0, storage.PutOptions{Shared: first})
	if err != nil || !one.Succeeded {
		t.Fatalf("put: %v %+v", err, one)
	}
	two, err := s.OptimisticPut(ctx, "/w/a", []byte("two"), one.Revision, storage.PutOptions{Shared: second})
	if err != nil || !two.Succeeded {
		t.Fatalf("put: %v %+v", err, two)
	}
	check := func(what string, kv *storage.KeyValue, value string, want unique.Handle[string]) {
		t.Helper()
		if kv == nil || string(kv.Value) != value || kv.Shared != want {
			t.Errorf("%s: %+v, want value %q with part %q", what, kv, value, want.Value())
		}
	}
	check("put", two.KV, "two", second)
	now, _ := s.Get(ctx, "/w/a", storage.GetOptions{})
	check("get", now.KV, "two", second)
	past, _ := s.Get(ctx, "/w/a", storage.GetOptions{Revision: one.Revision})
	check("get at a past revision", past.KV, "one", first)
	list, _ := s.List(ctx, "/w/", storage.ListOptions{})
	if len(list.KVs) != 1 {
		t.Fatalf("list: %+v", list)
	}
	check("list", list.KVs[0], "two", second)
	var events []storage.Event
	for len(events) < 2 {
		resp := <-w
		events = append(events, resp.Events...)
	}
	check("create event", events[0].KV, "one", first)
	check("update event", events[1].KV, "two", second)
	check("update event's previous value", events[1].PrevKV, "one", first)
}
