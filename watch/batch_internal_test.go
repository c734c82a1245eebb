package watch

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// queuedStore serves the cache's list from an empty memory store and
// each of its watches from responses queued before the watch begins, so
// that the cache finds them all waiting at once.
type queuedStore struct {
	storage.Interface
	watches chan []storage.WatchResponse // one queue per Watch call
}

func (s *queuedStore) Watch(ctx context.Context, prefix string, opts storage.WatchOptions) <-chan storage.WatchResponse {
	var queue []storage.WatchResponse
	select {
	case queue = <-s.watches:
	case <-ctx.Done():
	}
	ch := make(chan storage.WatchResponse, len(queue))
	for _, resp := range queue {
		ch <- resp
	}
	return ch // left open unless a response ends it: the cache waits
}

func created(rev int64) storage.WatchResponse {
	kv := &storage.KeyValue{Key: fmt.Sprintf("/w/%d", rev), Value: []byte("{}"), CreateRevision: rev, ModRevision: rev}
	return storage.WatchResponse{Revision: rev, Events: []storage.Event{{Type: storage.EventPut, KV: kv}}}
}

// TestWaitingResponsesAreOneChange: the responses waiting on the upstream
// channel are applied as one change of the trees, with one generation,
// and those that came before an error are applied before the watch ends.
func TestWaitingResponsesAreOneChange(t *testing.T) {
	s := &queuedStore{Interface: memory.New(memory.Options{}), watches: make(chan []storage.WatchResponse, 2)}
	c := New(s, "/w/", Options{Index: func(kv *storage.KeyValue) []string { return []string{"all"} }})
	defer c.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	listed := c.cur.Load()
	gens := c.gens.Load()

	// The first watch finds three responses and then a failure waiting;
	// the second, after the cache watches again, two more.
	s.watches <- []storage.WatchResponse{created(2), created(3), created(4), {Err: errors.New("connection lost")}}
	s.watches <- []storage.WatchResponse{created(5), created(6)}
	st := waitRevision(ctx, t, c, 6)
	if got := c.gens.Load() - gens; got != 2 {
		t.Errorf("two watches' waiting responses took %d generations, want 2", got)
	}
	if n := st.root.Len(); n != 5 {
		t.Errorf("mirror holds %d objects, want 5", n)
	}
	if got := st.log.len(); got != 5 {
		t.Errorf("window holds %d events, want 5", got)
	}
	if p, ok := st.index.get("all"); !ok || p.len() != 5 {
		t.Errorf("index holds %v, want 5 keys under %q", p, "all")
	}
	if listed.root.Len() != 0 || listed.index.Len() != 0 {
		t.Error("the batches changed the state published before them")
	}
}

// waitRevision waits until the cache has applied rev and returns its
// state.
func waitRevision(ctx context.Context, t *testing.T, c *Cache, rev int64) *state {
	t.Helper()
	for {
		st := c.cur.Load()
		if st.rev >= rev {
			return st
		}
		select {
		case <-st.changed:
		case <-ctx.Done():
			t.Fatalf("cache at revision %d, want %d", st.rev, rev)
		}
	}
}
