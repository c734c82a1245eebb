package memory_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"testing"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// TestListAtRevisionLarge compares lists at past revisions with a model on
// a store big enough for deep trees and long histories.
func TestListAtRevisionLarge(t *testing.T) {
	s := newStore(t, memory.Options{HistoryWindow: 3000})
	ctx := context.Background()
	rnd := rand.New(rand.NewSource(7))
	model := map[string]*storage.KeyValue{}
	var snaps []map[string]*storage.KeyValue
	var revs []int64
	for i := 0; i < 6000; i++ {
		key := fmt.Sprintf("/p/%04d", rnd.Intn(1500))
		if kv := model[key]; kv != nil && rnd.Intn(3) == 0 {
			if resp, _ := s.OptimisticDelete(ctx, key, kv.ModRevision, storage.DeleteOptions{}); !resp.Succeeded {
				t.Fatal("delete failed")
			}
			delete(model, key)
		} else {
			var expected int64
			if kv != nil {
				expected = kv.ModRevision
			}
			resp, _ := s.OptimisticPut(ctx, key, []byte{byte(i)}, expected, storage.PutOptions{})
			if !resp.Succeeded {
				t.Fatal("put failed")
			}
			model[key] = resp.KV
		}
		if i%500 == 499 {
			rev, _ := s.Revision(ctx)
			revs, snaps = append(revs, rev), append(snaps, maps.Clone(model))
		}
	}
	for i, rev := range revs {
		if _, err := s.List(ctx, "/p/", storage.ListOptions{Revision: rev}); i < len(revs)-6 {
			if !storage.IsCompacted(err) {
				t.Fatalf("List at %d: %v", rev, err)
			}
			continue
		}
		var keys []string
		for k := range snaps[i] {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		after, pos := "", 0
		for {
			l, err := s.List(ctx, "/p/", storage.ListOptions{Revision: rev, After: after, Limit: 97})
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range l.KVs {
				if kv != snaps[i][keys[pos]] {
					t.Fatalf("at %d item %d: %q, want %q", rev, pos, kv.Key, keys[pos])
				}
				pos++
			}
			if int(l.Remaining) != len(keys)-pos {
				t.Fatalf("at %d: remaining %d, want %d", rev, l.Remaining, len(keys)-pos)
			}
			if l.Remaining == 0 {
				break
			}
			after = l.KVs[len(l.KVs)-1].Key
		}
		if pos != len(keys) {
			t.Fatalf("at %d: listed %d of %d", rev, pos, len(keys))
		}
	}
}
