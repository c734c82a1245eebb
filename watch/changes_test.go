package watch_test

import (
	"context"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// Changes moves with every put and delete under the cache's prefix, and
// not when only the revision moves with the store's other keys.
func TestChanges(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{})
	sync := func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLong)
		defer cancel()
		if _, err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	start := c.Changes()
	put(t, s, key(1), `{"a":1}`)
	sync()
	if got := c.Changes(); got != start+1 {
		t.Fatalf("after a put under the prefix: %d, want %d", got, start+1)
	}
	rev := c.Revision()
	put(t, s, "/gadgets/default/g1", `{}`)
	deadline := time.Now().Add(waitLong)
	for c.Revision() == rev && time.Now().Before(deadline) {
		sync()
	}
	if c.Revision() == rev {
		t.Fatal("the revision did not follow the store")
	}
	if got := c.Changes(); got != start+1 {
		t.Errorf("after a put elsewhere: %d, want %d", got, start+1)
	}
	del(t, s, key(1))
	sync()
	if got := c.Changes(); got != start+2 {
		t.Errorf("after a delete under the prefix: %d, want %d", got, start+2)
	}
}
