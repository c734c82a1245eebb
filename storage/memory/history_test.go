package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// TestHistoryBytes checks that past values are compacted once they exceed
// HistoryBytes, oldest first, while reads at retained revisions still see
// their values.
func TestHistoryBytes(t *testing.T) {
	s := newStore(t, memory.Options{HistoryBytes: 1000})
	ctx := context.Background()
	value := strings.Repeat("x", 300)
	var revs []int64
	rev := int64(0)
	for i := 0; i < 10; i++ {
		rev = put(t, s, "/a", value, rev).Revision
		revs = append(revs, rev)
	}
	// Every write after the first keeps a 300-byte past value: at most
	// three fit in 1000 bytes, so only the last three revisions remain.
	tests := []struct {
		rev       int64
		compacted bool
	}{
		{revs[0], true}, {revs[6], true}, {revs[7], false}, {revs[9], false},
	}
	for _, tc := range tests {
		resp, err := s.Get(ctx, "/a", storage.GetOptions{Revision: tc.rev})
		if tc.compacted {
			var se *storage.Error
			if !errors.As(err, &se) || se.Code != storage.ErrCompacted {
				t.Errorf("Get at %d: %+v, %v; want compacted", tc.rev, resp, err)
			}
			continue
		}
		if err != nil || resp.KV == nil || resp.KV.ModRevision != tc.rev {
			t.Errorf("Get at %d: %+v, %v", tc.rev, resp, err)
		}
	}
	// A watch from the compacted revision replays what is left.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp := <-s.Watch(wctx, "/a", storage.WatchOptions{Revision: revs[6]})
	if resp.Err != nil || len(resp.Events) != 3 || resp.Events[0].KV.ModRevision != revs[7] {
		t.Errorf("watch from %d: %+v", revs[6], resp)
	}
}

// TestHistoryBytesCompact checks that an explicit Compact releases the
// accounting of what it drops: after compacting everything, new writes
// keep their history until the bound again.
func TestHistoryBytesCompact(t *testing.T) {
	s := newStore(t, memory.Options{HistoryBytes: 1000})
	ctx := context.Background()
	value := strings.Repeat("y", 300)
	rev := put(t, s, "/b", value, 0).Revision
	rev = put(t, s, "/b", value, rev).Revision
	if err := s.Compact(ctx, rev); err != nil {
		t.Fatal(err)
	}
	first := rev
	for i := 0; i < 3; i++ {
		rev = put(t, s, "/b", value, rev).Revision
	}
	// 900 bytes of past values fit: nothing after the compaction is lost.
	if resp, err := s.Get(ctx, "/b", storage.GetOptions{Revision: first + 1}); err != nil || resp.KV == nil {
		t.Errorf("Get at %d: %+v, %v", first+1, resp, err)
	}
}

// TestCompactionInterval checks that an idle store compacts on its own:
// revisions written before one tick are gone after the next, the current
// value stays.
func TestCompactionInterval(t *testing.T) {
	s := newStore(t, memory.Options{CompactionInterval: 10 * time.Millisecond})
	ctx := context.Background()
	first := put(t, s, "/a", "v1", 0).Revision
	last := put(t, s, "/a", "v2", first).Revision
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := s.Get(ctx, "/a", storage.GetOptions{Revision: first})
		var se *storage.Error
		if errors.As(err, &se) && se.Code == storage.ErrCompacted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("revision %d still readable after 10s of 10ms compaction ticks: %v", first, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	resp, err := s.Get(ctx, "/a", storage.GetOptions{})
	if err != nil || resp.KV == nil || string(resp.KV.Value) != "v2" || resp.KV.ModRevision != last {
		t.Fatalf("current value after compaction: %+v, %v", resp.KV, err)
	}
}
