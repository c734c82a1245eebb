package watch_test

import (
	"encoding/json"
	"runtime"
	"testing"

	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

func heap() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestMemoryPerEntry reports what the cache adds to the store for 10,000
// objects of about 1.9 KB (the values are shared with the store), and what
// each write retains in the window.
func TestMemoryPerEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	const n, writes = 10000, 2000
	s := newStore(t, memory.Options{})
	fill(t, s, n)
	before := heap()
	c := newCache(t, s, watch.Options{Decode: decodeWidget})
	cached := heap()
	perEntry := (cached - before) / n
	t.Logf("cache overhead: %d bytes per entry (values of %d bytes shared with the store)", perEntry, len(widgetJSON(0)))
	if perEntry > 200 {
		t.Errorf("%d bytes per entry", perEntry)
	}

	// Decoded objects and one cached encoding each, as a server that
	// reads them all would keep.
	res, err := c.List(ctx, prefix, watch.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start := heap()
	for _, e := range res.Entries {
		obj, _ := e.Object()
		e.Encoded("application/json", func() ([]byte, error) { return json.Marshal(obj) })
	}
	t.Logf("after decoding and encoding each as JSON once: %d more bytes per entry", (heap()-start)/n)

	// What a write costs: the store alone versus the store and the cache.
	update := func(from int) int64 {
		start := heap()
		for i := 0; i < writes; i++ {
			put(t, s, key((from+i)%n), string(widgetJSON(i)))
		}
		c.Sync(ctx)
		return (heap() - start) / writes
	}
	withCache := update(0)
	c.Stop()
	storeOnly := update(writes)
	perWrite := withCache - storeOnly
	t.Logf("each write retains %d bytes in the cache's window (store: %d)", perWrite, storeOnly)
	// A change's record and entry, and no copy of the tree's path: past
	// states are rebuilt when read.
	if perWrite > 300 {
		t.Errorf("each write retains %d bytes in the cache", perWrite)
	}
}
