package memory_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/storage/storagetest"
)

const progress = 20 * time.Millisecond

func newStore(t *testing.T, opts memory.Options) *memory.Store {
	s := memory.New(opts)
	t.Cleanup(s.Close)
	return s
}

func TestConformance(t *testing.T) {
	storagetest.RunOptions(t, func(t *testing.T) storage.Interface {
		return newStore(t, memory.Options{ProgressInterval: progress})
	}, storagetest.Options{ProgressNotifyInterval: progress})
}

// TestConformanceSmallWindow runs the suite with a history window and
// watch buffer small enough to trim history and fill channels.
func TestConformanceSmallWindow(t *testing.T) {
	storagetest.RunOptions(t, func(t *testing.T) storage.Interface {
		return newStore(t, memory.Options{HistoryWindow: 200, WatchBuffer: 1, ProgressInterval: progress})
	}, storagetest.Options{ProgressNotifyInterval: progress})
}

func put(t *testing.T, s *memory.Store, key, value string, expected int64) storage.PutResponse {
	t.Helper()
	resp, err := s.OptimisticPut(context.Background(), key, []byte(value), expected, storage.PutOptions{})
	if err != nil || !resp.Succeeded {
		t.Fatalf("OptimisticPut(%q, %d) = %+v, %v", key, expected, resp, err)
	}
	return resp
}

func TestRevisions(t *testing.T) {
	s := newStore(t, memory.Options{})
	ctx := context.Background()
	if rev, _ := s.Revision(ctx); rev != 1 {
		t.Fatalf("empty store at revision %d, want 1", rev)
	}
	a := put(t, s, "/a", "1", 0)
	if a.Revision != 2 || a.KV.CreateRevision != 2 || a.KV.ModRevision != 2 {
		t.Fatalf("first write: %+v", a)
	}
	b := put(t, s, "/a", "2", 2)
	if b.Revision != 3 || b.KV.CreateRevision != 2 || b.KV.ModRevision != 3 {
		t.Fatalf("second write: %+v", b)
	}
	d, _ := s.OptimisticDelete(ctx, "/a", 3, storage.DeleteOptions{})
	if !d.Succeeded || d.Revision != 4 {
		t.Fatalf("delete: %+v", d)
	}
	if g, _ := s.Get(ctx, "/a", storage.GetOptions{Revision: 1}); g.KV != nil || g.Revision != 1 {
		t.Fatalf("Get at revision 1: %+v", g)
	}
}

func TestHistoryWindow(t *testing.T) {
	const window = 10
	s := newStore(t, memory.Options{HistoryWindow: window})
	ctx := context.Background()
	rev := int64(0)
	for i := 0; i < 100; i++ {
		rev = put(t, s, fmt.Sprintf("/k/%d", i%7), fmt.Sprint(i), 0).Revision
		if _, err := s.OptimisticDelete(ctx, fmt.Sprintf("/k/%d", i%7), rev, storage.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		rev++
	}
	_, err := s.Get(ctx, "/k/1", storage.GetOptions{Revision: rev - window})
	var se *storage.Error
	if !errors.As(err, &se) || se.Code != storage.ErrCompacted || se.Revision != rev-window {
		t.Fatalf("Get beyond the window: %v", err)
	}
	if _, err := s.List(ctx, "/k/", storage.ListOptions{Revision: rev - window + 1}); err != nil {
		t.Fatalf("List inside the window: %v", err)
	}
	resp := <-s.Watch(ctx, "/k/", storage.WatchOptions{Revision: rev - window - 1})
	if !storage.IsCompacted(resp.Err) {
		t.Fatalf("Watch beyond the window: %+v", resp)
	}
	// Every event after the compacted revision is still there, so a watch
	// from it works, as in etcd.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if resp := <-s.Watch(wctx, "/k/", storage.WatchOptions{Revision: rev - window}); resp.Err != nil || len(resp.Events) == 0 {
		t.Fatalf("Watch from the compacted revision: %+v", resp)
	}
}

// TestSlowWatcher checks that a watcher nobody reads never blocks writers
// and ends with ErrCompacted once it falls out of the history window.
func TestSlowWatcher(t *testing.T) {
	s := newStore(t, memory.Options{HistoryWindow: 50, WatchBuffer: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := s.Watch(ctx, "/k/", storage.WatchOptions{})
	first := put(t, s, "/k/a", "first", 0).Revision
	if resp := <-slow; len(resp.Events) != 1 {
		t.Fatalf("first response: %+v", resp)
	}
	done := make(chan error, 1)
	go func() {
		rev := first
		for i := 0; i < 2000; i++ {
			resp, err := s.OptimisticPut(ctx, "/k/a", []byte(fmt.Sprint(i)), rev, storage.PutOptions{})
			if err != nil || !resp.Succeeded {
				done <- fmt.Errorf("write %d: %+v, %v", i, resp, err)
				return
			}
			rev = resp.Revision
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("writers blocked by a slow watcher")
	}
	var events int
	var last storage.WatchResponse
	for resp := range slow {
		events += len(resp.Events)
		last = resp
	}
	if !storage.IsCompacted(last.Err) {
		t.Fatalf("slow watcher ended with %+v after %d events", last, events)
	}
	if events >= 2000 {
		t.Fatalf("slow watcher got %d events", events)
	}
}

func TestNoGoroutineLeak(t *testing.T) {
	base := runtime.NumGoroutine()
	s := memory.New(memory.Options{ProgressInterval: time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	var chans []<-chan storage.WatchResponse
	for i := 0; i < 50; i++ {
		chans = append(chans, s.Watch(ctx, "/k/", storage.WatchOptions{ProgressNotify: i%2 == 0}))
	}
	put(t, s, "/k/a", "x", 0)
	cancel()
	for _, ch := range chans {
		for range ch {
		}
	}
	// Watches still running when the store closes end too.
	for i := 0; i < 10; i++ {
		s.Watch(context.Background(), "/k/", storage.WatchOptions{Revision: 1})
	}
	s.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), base)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestClosed(t *testing.T) {
	s := memory.New(memory.Options{})
	ctx := context.Background()
	w := s.Watch(ctx, "/k/", storage.WatchOptions{})
	s.Close()
	s.Close()
	var last storage.WatchResponse
	for resp := range w {
		last = resp
	}
	if !storage.IsUnavailable(last.Err) {
		t.Fatalf("watch at close ended with %+v", last)
	}
	if _, err := s.Get(ctx, "/k/a", storage.GetOptions{}); !storage.IsUnavailable(err) {
		t.Fatalf("Get after Close: %v", err)
	}
	if _, err := s.OptimisticPut(ctx, "/k/a", nil, 0, storage.PutOptions{}); !storage.IsUnavailable(err) {
		t.Fatalf("OptimisticPut after Close: %v", err)
	}
	if resp := <-s.Watch(ctx, "/k/", storage.WatchOptions{}); !storage.IsUnavailable(resp.Err) {
		t.Fatalf("Watch after Close: %+v", resp)
	}
}

func TestCompactErrors(t *testing.T) {
	s := newStore(t, memory.Options{})
	ctx := context.Background()
	put(t, s, "/k/a", "x", 0)
	if err := s.Compact(ctx, 5); !storage.IsFutureRevision(err) {
		t.Fatalf("Compact beyond the revision: %v", err)
	}
	if err := s.Compact(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := s.Compact(ctx, 1); err != nil {
		t.Fatalf("Compact below the compacted revision: %v", err)
	}
	if g, err := s.Get(ctx, "/k/a", storage.GetOptions{}); err != nil || g.KV == nil {
		t.Fatalf("current Get after compacting everything: %+v, %v", g, err)
	}
	put(t, s, "/k/b", "y", 0)
	if l, err := s.List(ctx, "/k/", storage.ListOptions{Revision: 3}); err != nil || len(l.KVs) != 2 {
		t.Fatalf("List after compaction: %+v, %v", l, err)
	}
}
