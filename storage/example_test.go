package storage_test

import (
	"context"
	"fmt"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// Writes are compare-and-swap on the key's ModRevision, the object's
// resourceVersion.
func Example() {
	ctx := context.Background()
	var s storage.Interface = memory.New(memory.Options{})

	created, _ := s.OptimisticPut(ctx, "/widgets/default/a", []byte(`v1`), 0, storage.PutOptions{})
	fmt.Println("created:", created.Succeeded)

	again, _ := s.OptimisticPut(ctx, "/widgets/default/a", []byte(`v1`), 0, storage.PutOptions{})
	fmt.Println("create again:", again.Succeeded, string(again.KV.Value))

	updated, _ := s.OptimisticPut(ctx, "/widgets/default/a", []byte(`v2`), created.KV.ModRevision, storage.PutOptions{})
	fmt.Println("update at the current revision:", updated.Succeeded)

	stale, _ := s.OptimisticPut(ctx, "/widgets/default/a", []byte(`v3`), created.KV.ModRevision, storage.PutOptions{})
	fmt.Println("update at a stale revision:", stale.Succeeded, string(stale.KV.Value))

	old, _ := s.Get(ctx, "/widgets/default/a", storage.GetOptions{Revision: created.KV.ModRevision})
	fmt.Println("read at the first revision:", string(old.KV.Value))
	// Output:
	// created: true
	// create again: false v1
	// update at the current revision: true
	// update at a stale revision: false v2
	// read at the first revision: v1
}
