package memory_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// fakeTicks drives a store's periodic compaction by hand. Its channel is
// unbuffered: when tick returns, the store's compaction loop has taken the
// tick, so every compaction of the ticks before it has finished.
type fakeTicks struct {
	ch chan time.Time
	at time.Time
}

func newFakeTicks() *fakeTicks {
	return &fakeTicks{ch: make(chan time.Time), at: time.Unix(0, 0)}
}

func (f *fakeTicks) ticks(time.Duration) (<-chan time.Time, func()) {
	return f.ch, func() {}
}

// tick advances the fake clock by one compaction period.
func (f *fakeTicks) tick(t *testing.T) {
	t.Helper()
	f.at = f.at.Add(memory.DefaultCompactionInterval)
	select {
	case f.ch <- f.at:
	case <-time.After(10 * time.Second):
		t.Fatal("the store's compaction loop did not take a tick in 10s")
	}
}

// compacted reports whether a read at rev fails as compacted.
func compacted(s *memory.Store, rev int64) bool {
	_, err := s.Get(context.Background(), "/k", storage.GetOptions{Revision: rev})
	var se *storage.Error
	return errors.As(err, &se) && se.Code == storage.ErrCompacted
}

// TestIdleCompaction runs the default store (the default compaction
// interval, driven by a fake clock) through many compaction periods: with
// no write at all, with one write, and with writes and deletes between
// ticks. The store must keep serving, compact what is one period old and
// keep what is newer.
func TestIdleCompaction(t *testing.T) {
	const periods = 200
	tests := []struct {
		name string
		// write runs before tick i and returns the revision it made, 0
		// when it wrote nothing.
		write func(t *testing.T, s *memory.Store, i int) int64
	}{
		{"no writes", func(*testing.T, *memory.Store, int) int64 { return 0 }},
		{"one write", func(t *testing.T, s *memory.Store, i int) int64 {
			if i != periods/2 {
				return 0
			}
			return put(t, s, "/k", "only", 0).Revision
		}},
		{"writes and deletes", func(t *testing.T, s *memory.Store, i int) int64 {
			ctx := context.Background()
			key := fmt.Sprintf("/k%d", i%7)
			cur, err := s.Get(ctx, key, storage.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if cur.KV != nil && i%3 == 0 {
				resp, err := s.OptimisticDelete(ctx, key, cur.KV.ModRevision, storage.DeleteOptions{})
				if err != nil || !resp.Succeeded {
					t.Fatalf("delete %s: %+v, %v", key, resp, err)
				}
				return resp.Revision
			}
			var expected int64
			if cur.KV != nil {
				expected = cur.KV.ModRevision
			}
			return put(t, s, key, fmt.Sprint(i), expected).Revision
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeTicks()
			s := newStore(t, memory.Options{Ticks: clock.ticks})
			ctx := context.Background()
			var revs []int64 // the revision current at each tick
			for i := 0; i < periods; i++ {
				tc.write(t, s, i)
				clock.tick(t)
				rev, err := s.Revision(ctx)
				if err != nil {
					t.Fatalf("period %d: %v", i, err)
				}
				revs = append(revs, rev)
				// Each tick compacts through the revision current at
				// the tick before. Once tick i is taken, the
				// compaction of tick i-1 has run: through the
				// revision of tick i-2.
				if i >= 2 && !compacted(s, revs[i-2]) {
					t.Fatalf("period %d: revision %d not compacted", i, revs[i-2])
				}
			}
			clock.tick(t) // the last compaction has run
			rev, err := s.Revision(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// The store still reads, takes writes and watches from
			// its current revision (a watch may start at the
			// compacted revision itself).
			if _, err := s.Get(ctx, "/k", storage.GetOptions{}); err != nil {
				t.Fatalf("Get: %v", err)
			}
			wctx, cancel := context.WithCancel(ctx)
			defer cancel()
			w := s.Watch(wctx, "/", storage.WatchOptions{Revision: rev})
			next := put(t, s, "/after", "v", 0)
			select {
			case resp := <-w:
				if resp.Err != nil || len(resp.Events) != 1 || resp.Events[0].KV.ModRevision != next.Revision {
					t.Fatalf("watch from %d: %+v", rev, resp)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no event in 10s")
			}
		})
	}
}

// TestCompactEmpty checks that compacting a store that was never written
// is allowed and changes nothing visible.
func TestCompactEmpty(t *testing.T) {
	s := newStore(t, memory.Options{CompactionInterval: -1})
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if err := s.Compact(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	resp := put(t, s, "/k", "v", 0)
	if err := s.Compact(ctx, resp.Revision); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, "/k", storage.GetOptions{}); err != nil || got.KV == nil {
		t.Fatalf("Get after compaction: %+v, %v", got, err)
	}
}
