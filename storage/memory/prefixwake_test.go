package memory_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
)

// quiet is a progress interval no test waits out.
const quiet = time.Hour

// receive returns the next response on ch, failing after a while.
func receive(t *testing.T, ch <-chan storage.WatchResponse) storage.WatchResponse {
	t.Helper()
	select {
	case resp := <-ch:
		return resp
	case <-time.After(5 * time.Second):
		t.Fatal("no response")
		return storage.WatchResponse{}
	}
}

// nothing checks that ch stays silent for a short while.
func nothing(t *testing.T, ch <-chan storage.WatchResponse) {
	t.Helper()
	select {
	case resp := <-ch:
		t.Fatalf("unexpected response %+v", resp)
	case <-time.After(50 * time.Millisecond):
	}
}

// TestWritesElsewhereAreSilent: writes under other prefixes send a watch
// nothing, progress responses included; they come on request.
func TestWritesElsewhereAreSilent(t *testing.T) {
	s := newStore(t, memory.Options{ProgressInterval: quiet})
	ctx := context.Background()
	ch := s.Watch(ctx, "/a/", storage.WatchOptions{ProgressNotify: true})
	var last int64
	for i := range 10 {
		last = put(t, s, fmt.Sprintf("/b/%d", i), "x", 0).Revision
	}
	nothing(t, ch)
	if err := s.RequestProgress(ctx); err != nil {
		t.Fatal(err)
	}
	if resp := receive(t, ch); len(resp.Events) != 0 || resp.Err != nil || resp.Revision != last {
		t.Fatalf("after a progress request got %+v, want progress at %d", resp, last)
	}
	// A request made before the watch waits for one is answered too.
	early := s.Watch(ctx, "/a/", storage.WatchOptions{ProgressNotify: true})
	last = put(t, s, "/b/early", "x", 0).Revision
	if err := s.RequestProgress(ctx); err != nil {
		t.Fatal(err)
	}
	if resp := receive(t, early); len(resp.Events) != 0 || resp.Revision != last {
		t.Fatalf("early watch got %+v, want progress at %d", resp, last)
	}
	if resp := receive(t, ch); len(resp.Events) != 0 || resp.Revision != last {
		t.Fatalf("got %+v, want progress at %d", resp, last)
	}
	// A watch without ProgressNotify is not asked.
	plain := s.Watch(ctx, "/a/", storage.WatchOptions{})
	put(t, s, "/b/x", "x", 0)
	if err := s.RequestProgress(ctx); err != nil {
		t.Fatal(err)
	}
	nothing(t, plain)
	if resp := receive(t, ch); len(resp.Events) != 0 || resp.Revision != last+1 {
		t.Fatalf("after the second progress request got %+v", resp)
	}
	rev := put(t, s, "/a/1", "y", 0).Revision
	for _, c := range []<-chan storage.WatchResponse{ch, plain} {
		resp := receive(t, c)
		if len(resp.Events) != 1 || resp.Events[0].KV.ModRevision != rev {
			t.Fatalf("got %+v, want the event at %d", resp, rev)
		}
	}
}

// TestIdleWatchOutlivesCompaction: a watch none of whose keys were
// written is not failed when the revisions it has not looked at are
// compacted; it still gets the next event under its prefix.
func TestIdleWatchOutlivesCompaction(t *testing.T) {
	s := newStore(t, memory.Options{HistoryWindow: 10, ProgressInterval: quiet})
	ctx := context.Background()
	ch := s.Watch(ctx, "/a/", storage.WatchOptions{})
	for i := range 100 {
		put(t, s, fmt.Sprintf("/b/%d", i), "x", 0)
	}
	if err := s.Compact(ctx, put(t, s, "/b/last", "x", 0).Revision); err != nil {
		t.Fatal(err)
	}
	rev := put(t, s, "/a/1", "y", 0).Revision
	resp := receive(t, ch)
	if resp.Err != nil || len(resp.Events) != 1 || resp.Events[0].KV.ModRevision != rev {
		t.Fatalf("got %+v, want the event at %d", resp, rev)
	}
}

// TestWatchFromPastReadsHistory: a watch from a past revision gets the
// events written before it started, though no write marked it.
func TestWatchFromPastReadsHistory(t *testing.T) {
	s := newStore(t, memory.Options{ProgressInterval: quiet})
	first := put(t, s, "/a/1", "x", 0).Revision
	put(t, s, "/b/1", "x", 0)
	second := put(t, s, "/a/2", "x", 0).Revision
	ch := s.Watch(context.Background(), "/a/", storage.WatchOptions{Revision: first - 1})
	var got []int64
	for len(got) < 2 {
		for _, ev := range receive(t, ch).Events {
			got = append(got, ev.KV.ModRevision)
		}
	}
	if got[0] != first || got[1] != second {
		t.Fatalf("got revisions %v, want [%d %d]", got, first, second)
	}
}

// BenchmarkPutWithIdleWatches: a write costs the watches of other
// prefixes nothing.
func BenchmarkPutWithIdleWatches(b *testing.B) {
	s := memory.New(memory.Options{})
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 15 {
		ch := s.Watch(ctx, fmt.Sprintf("/idle%d/", i), storage.WatchOptions{ProgressNotify: true})
		go func() {
			for range ch {
			}
		}()
	}
	value := []byte("v")
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.OptimisticPut(ctx, fmt.Sprintf("/busy/%d", i), value, 0, storage.PutOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
