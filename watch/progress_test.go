package watch_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// quietStore hides the memory store's progress responses unless progress
// was requested, as etcd behaves with its ten-minute default interval.
type quietStore struct {
	*memory.Store
	requested atomic.Int32
}

func (q *quietStore) RequestProgress(context.Context) error {
	q.requested.Add(1)
	return nil
}

func (q *quietStore) Watch(ctx context.Context, prefix string, opts storage.WatchOptions) <-chan storage.WatchResponse {
	in := q.Store.Watch(ctx, prefix, opts)
	out := make(chan storage.WatchResponse)
	go func() {
		defer close(out)
		for resp := range in {
			if len(resp.Events) == 0 && resp.Err == nil && q.requested.Load() == 0 {
				continue
			}
			if len(resp.Events) == 0 && resp.Err == nil {
				q.requested.Add(-1)
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

// A consistent read after writes elsewhere in the store asks the store
// for progress instead of waiting out the freshness timeout.
func TestConsistentReadRequestsProgress(t *testing.T) {
	q := &quietStore{Store: newStore(t, memory.Options{ProgressInterval: 10 * time.Millisecond})}
	c := newCache(t, q, watch.Options{FreshnessTimeout: 2 * time.Second})
	ctx := context.Background()
	if err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := q.OptimisticPut(ctx, "/other/x", []byte("v"), 0, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := c.List(ctx, "/widgets/", watch.ListOptions{List: resourceversion.List{Semantics: resourceversion.MostRecent}}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("consistent read took %v", d)
	}
}
