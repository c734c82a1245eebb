package memory_test

import (
	"context"
	"testing"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// TestPutValueOwned checks that the store keeps the caller's bytes only
// when the caller hands them over: without ValueOwned, changing the
// caller's slice after the put must not change what the store reads back;
// with it, the stored value is the caller's array itself, not a copy.
func TestPutValueOwned(t *testing.T) {
	for _, tc := range []struct {
		name   string
		owned  bool
		shared bool // the stored value is the caller's array
	}{
		{name: "copied", owned: false, shared: false},
		{name: "owned", owned: true, shared: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t, memory.Options{})
			ctx := context.Background()
			value := append(make([]byte, 0, 64), "value-1"...)
			resp, err := s.OptimisticPut(ctx, "/k", value, 0, storage.PutOptions{ValueOwned: tc.owned})
			if err != nil || !resp.Succeeded {
				t.Fatalf("put: %v, %+v", err, resp)
			}
			got, err := s.Get(ctx, "/k", storage.GetOptions{})
			if err != nil || got.KV == nil || string(got.KV.Value) != "value-1" {
				t.Fatalf("get: %v, %+v", err, got.KV)
			}
			if shared := &got.KV.Value[0] == &value[0]; shared != tc.shared {
				t.Errorf("stored value shares the caller's array: %v, want %v", shared, tc.shared)
			}
			if c := cap(got.KV.Value); c != len(got.KV.Value) {
				t.Errorf("stored value has capacity %d beyond its %d bytes: an append by a reader would write into shared memory", c, len(got.KV.Value))
			}
			if !tc.owned {
				value[0] = 'X'
				if got, _ := s.Get(ctx, "/k", storage.GetOptions{}); string(got.KV.Value) != "value-1" {
					t.Errorf("after the caller changed its slice the store reads %q", got.KV.Value)
				}
			}
		})
	}
}
