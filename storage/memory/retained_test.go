package memory_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestHistoryBytesRetained checks that HistoryBytes bounds the memory the
// history really keeps, not only its accounting: after 64 writes of 1 MiB
// values to 4 keys, what the store retains is the 4 current values plus
// at most the budget of past ones (the old store kept all 64 MiB).
func TestHistoryBytesRetained(t *testing.T) {
	const value = 1 << 20
	for _, budget := range []int64{2 << 20, 8 << 20} {
		t.Run(fmt.Sprintf("%d MiB", budget>>20), func(t *testing.T) {
			before := heapInUse()
			s := memory.New(memory.Options{HistoryBytes: budget, CompactionInterval: -1})
			defer s.Close()
			revs := map[string]int64{}
			for i := 0; i < 64; i++ {
				key := fmt.Sprintf("/k%d", i%4)
				resp, err := s.OptimisticPut(context.Background(), key, make([]byte, value), revs[key], storage.PutOptions{})
				if err != nil || !resp.Succeeded {
					t.Fatalf("put %d: %+v %v", i, resp, err)
				}
				revs[key] = resp.Revision
			}
			retained := heapInUse() - before
			limit := 4*value + budget + 2<<20 // current values, past ones, slack
			t.Logf("budget %d MiB: %.1f MiB retained (limit %.1f MiB)", budget>>20, float64(retained)/(1<<20), float64(limit)/(1<<20))
			if retained > limit {
				t.Errorf("the store retains %d bytes, over the %d of 4 current values and a %d-byte history", retained, limit, budget)
			}
			runtime.KeepAlive(s)
		})
	}
}

// TestRetainedPerKey bounds what the store keeps per key beyond its
// values, for keys created and updated once with both versions in the
// history: the two values, one copy of the key (its versions share it),
// the two KeyValues, events and tree. Keys are long so that a second copy
// of each would show.
func TestRetainedPerKey(t *testing.T) {
	const keys, keyLen, valueLen = 2000, 250, 1000 // allocations of 256 and 1024 bytes
	cases := []struct {
		name    string
		updates int
		values  int // versions the history keeps
	}{
		{"created", 0, 1},
		{"created and updated", 1, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			names := make([]string, keys)
			for i := range names {
				names[i] = fmt.Sprintf("/%0*d", keyLen-1, i)
			}
			before := heapInUse()
			s := memory.New(memory.Options{CompactionInterval: -1})
			defer s.Close()
			for i := range keys {
				var rev int64
				for range 1 + tc.updates {
					key := string([]byte(names[i])) // a fresh copy, as a server's request makes
					resp, err := s.OptimisticPut(context.Background(), key, make([]byte, valueLen), rev, storage.PutOptions{})
					if err != nil || !resp.Succeeded {
						t.Fatalf("put %d: %+v %v", i, resp, err)
					}
					rev = resp.Revision
				}
			}
			perKey := float64(heapInUse()-before) / keys
			// The values and the key, about 100 bytes of KeyValue, event
			// and tree for each version, and slack.
			limit := float64(tc.values*(1024+96) + 256 + 64)
			t.Logf("%.0f bytes retained per key (limit %.0f)", perKey, limit)
			if perKey > limit {
				t.Errorf("the store retains %.0f bytes per key, over %.0f", perKey, limit)
			}
			runtime.KeepAlive(s)
			runtime.KeepAlive(names)
		})
	}
}
