package memory_test

import (
	"context"
	"fmt"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

func Example() {
	ctx := context.Background()
	s := memory.New(memory.Options{})
	defer s.Close()

	// Watch the widgets from the store's first revision.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := s.Watch(ctx, "/widgets/", storage.WatchOptions{Revision: 1})

	// Create (expected revision 0: the key must not exist), then update
	// with compare-and-swap on the last ModRevision.
	created, _ := s.OptimisticPut(ctx, "/widgets/a", []byte("red"), 0, storage.PutOptions{})
	updated, _ := s.OptimisticPut(ctx, "/widgets/a", []byte("blue"), created.KV.ModRevision, storage.PutOptions{})
	stale, _ := s.OptimisticPut(ctx, "/widgets/a", []byte("green"), created.KV.ModRevision, storage.PutOptions{})
	fmt.Println("create:", created.Succeeded, created.Revision)
	fmt.Println("update:", updated.Succeeded, updated.Revision)
	fmt.Println("stale update:", stale.Succeeded, string(stale.KV.Value))

	// Read the past.
	old, _ := s.Get(ctx, "/widgets/a", storage.GetOptions{Revision: created.Revision})
	fmt.Println("at revision", old.Revision, "value", string(old.KV.Value))

	// Each event carries the previous value.
	for n := 0; n < 2; {
		resp := <-events
		for _, ev := range resp.Events {
			prev := "<none>"
			if ev.PrevKV != nil {
				prev = string(ev.PrevKV.Value)
			}
			fmt.Printf("event at %d: %s (was %s)\n", ev.KV.ModRevision, ev.KV.Value, prev)
			n++
		}
	}
	// Output:
	// create: true 2
	// update: true 3
	// stale update: false blue
	// at revision 2 value red
	// event at 2: red (was <none>)
	// event at 3: blue (was red)
}
