package storagetest

import (
	"unique"

	"github.com/kapi-dev/kapi/storage"
)

// testSharedParts: a store that keeps shared parts returns a value's
// with it wherever the value is read: a get, a get at a past revision, a
// list, and a watch event's value and previous value. Other stores are
// not given any.
func testSharedParts(h *harness) {
	keeper, ok := h.s.(storage.SharedKeeper)
	if !ok || !keeper.KeepsShared() {
		h.Skip("the store does not keep shared parts")
	}
	first, second := unique.Make("first part"), unique.Make("second part")
	w, cancel := h.watch("/w/", storage.WatchOptions{Revision: h.revision()})
	defer cancel()
	one, err := h.s.OptimisticPut(h.ctx, "/w/a", []byte("one"), 0, storage.PutOptions{Shared: first})
	if err != nil || !one.Succeeded {
		h.Fatalf("put: %v %+v", err, one)
	}
	two, err := h.s.OptimisticPut(h.ctx, "/w/a", []byte("two"), one.Revision, storage.PutOptions{Shared: second})
	if err != nil || !two.Succeeded {
		h.Fatalf("put: %v %+v", err, two)
	}
	check := func(what string, kv *storage.KeyValue, value string, want unique.Handle[string]) {
		h.Helper()
		if kv == nil || string(kv.Value) != value || kv.Shared != want {
			h.Errorf("%s: %s, want value %q with part %q", what, fmtKV(kv), value, want.Value())
		}
	}
	check("put", two.KV, "two", second)
	check("get", h.get("/w/a", 0).KV, "two", second)
	check("get at a past revision", h.get("/w/a", one.Revision).KV, "one", first)
	if l := h.list("/w/", storage.ListOptions{}); len(l.KVs) != 1 {
		h.Errorf("list: %d values, want 1", len(l.KVs))
	} else {
		check("list", l.KVs[0], "two", second)
	}
	events := h.collect(w, 2)
	check("create event", events[0].KV, "one", first)
	check("update event", events[1].KV, "two", second)
	check("update event's previous value", events[1].PrevKV, "one", first)
}
