package etcd_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/etcd"
	"github.com/kapi-dev/kapi/watch"
)

// TestWatchCacheResumeAfterRestart: a client that saw the changes up to R
// resumes its watch from R on a server restarted on the same etcd data.
// The new watch cache's window starts at its first list, after R, yet the
// watch is not answered 410 Expired (which would make every client list
// again): it receives the changes after R from etcd's history, in order,
// then the ones made after the restart.
func TestWatchCacheResumeAfterRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var want []int64           // the revisions of every change, in order
	last := map[string]int64{} // each key's ModRevision
	write := func(s storage.Interface, n int) {
		for i := 0; i < n; i++ {
			key := fmt.Sprintf("/widgets/default/w%d", i%3)
			resp, err := s.OptimisticPut(ctx, key, []byte(fmt.Sprint(len(want))), last[key], storage.PutOptions{})
			if err != nil || !resp.Succeeded {
				t.Fatalf("put %s: %+v, %v", key, resp, err)
			}
			last[key] = resp.KV.ModRevision
			want = append(want, resp.KV.ModRevision)
		}
	}
	srv := startEtcd(t, dir, true)
	s := etcd.New(srv.cli, etcd.Options{Prefix: "/registry"})
	c := watch.New(s, "/widgets/", watch.Options{})
	w, err := c.Watch(ctx, "/widgets/", 1, watch.WatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	write(s, 20)
	seen := receive(t, w, 8) // the client saw 8 changes, then the server stopped
	c.Stop()
	srv.cli.Close()
	srv.stop()

	srv = startEtcd(t, dir, true)
	s = etcd.New(srv.cli, etcd.Options{Prefix: "/registry"})
	c = watch.New(s, "/widgets/", watch.Options{})
	defer c.Stop()
	if _, err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	w, err = c.Watch(ctx, "/widgets/", seen[len(seen)-1], watch.WatchOptions{})
	if err != nil {
		t.Fatalf("resuming the watch after a restart: %v", err)
	}
	defer w.Stop()
	write(s, 10)
	got := append(seen, receive(t, w, len(want)-len(seen))...)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("changes at %v, want %v", got, want)
	}
}

// receive returns the revisions of the watcher's next n changes.
func receive(t *testing.T, w *watch.Watcher, n int) []int64 {
	t.Helper()
	var revs []int64
	for len(revs) < n {
		select {
		case ev, ok := <-w.Events():
			if !ok {
				t.Fatalf("watch ended after %d of %d changes: %v", len(revs), n, w.Err())
			}
			if ev.Type != watch.Bookmark {
				revs = append(revs, ev.Revision)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d changes after 10s", len(revs), n)
		}
	}
	return revs
}
