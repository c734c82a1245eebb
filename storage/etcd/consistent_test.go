package etcd_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/etcd"
	"github.com/kapi-dev/kapi/watch"
)

// revisionCounter counts a store's current-revision requests to etcd.
type revisionCounter struct{ n atomic.Int64 }

func (c *revisionCounter) ObserveEtcdRequest(operation, _, _ string, _ time.Duration, _ error) {
	if operation == "getCurrentResourceVersion" {
		c.n.Add(1)
	}
}

// newClient opens another client of srv, as a second server would.
func newClient(t *testing.T, srv *server) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{srv.e.Clients[0].Addr().String()},
		DialTimeout: 10 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

var mostRecent = resourceversion.Get{Semantics: resourceversion.MostRecent}

// TestConsistentReadsAcrossServers runs two servers, A and B, each with
// its own client, store and watch cache, on one etcd. Every write made
// through A and acknowledged is seen by the consistent get that B then
// serves from its cache, while other consistent reads of B, made all the
// time, share its current-revision requests with it.
func TestConsistentReadsAcrossServers(t *testing.T) {
	ctx := context.Background()
	srv := startEtcd(t, t.TempDir(), false)
	a := etcd.New(srv.cli, etcd.Options{Prefix: "/registry"})
	counter := &revisionCounter{}
	b := etcd.New(newClient(t, srv), etcd.Options{Prefix: "/registry", Observer: counter})
	cacheB := watch.New(b, "/widgets/", watch.Options{})
	defer cacheB.Stop()
	if _, err := cacheB.Sync(ctx); err != nil {
		t.Fatal(err)
	}

	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 8 { // background consistent reads that B's checks share requests with
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := cacheB.List(ctx, "/widgets/", watch.ListOptions{}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	defer func() { close(stop); readers.Wait() }()

	const key = "/widgets/default/w"
	var mod int64
	for i := range 100 {
		resp, err := a.OptimisticPut(ctx, key, []byte(fmt.Sprint(i)), mod, storage.PutOptions{})
		if err != nil || !resp.Succeeded {
			t.Fatalf("write %d through A: %+v, %v", i, resp, err)
		}
		mod = resp.KV.ModRevision
		if i%10 == 0 { // a write elsewhere, which B's cache sees only as progress
			if _, err := a.OptimisticPut(ctx, fmt.Sprintf("/gadgets/g%d", i), nil, 0, storage.PutOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		got, err := cacheB.Get(ctx, key, mostRecent)
		if err != nil {
			t.Fatal(err)
		}
		if got.Entry == nil || got.Entry.KV.ModRevision != mod || got.Revision < mod {
			t.Fatalf("write %d at %d through A; B's consistent get read %+v at %d", i, mod, got.Entry, got.Revision)
		}
	}
}

// TestConsistentReadsShareRevisionEtcd sends bursts of 64 concurrent
// consistent gets to a cache on etcd and counts its current-revision
// requests at the store: the reads of a burst share them, so there are
// far fewer than reads (one each before).
func TestConsistentReadsShareRevisionEtcd(t *testing.T) {
	ctx := context.Background()
	srv := startEtcd(t, t.TempDir(), false)
	counter := &revisionCounter{}
	s := etcd.New(srv.cli, etcd.Options{Prefix: "/registry", Observer: counter})
	if _, err := s.OptimisticPut(ctx, "/widgets/default/w", []byte("w"), 0, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	c := watch.New(s, "/widgets/", watch.Options{})
	defer c.Stop()
	if _, err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	const bursts, readers = 4, 64
	before := counter.n.Load()
	for range bursts {
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range readers {
			wg.Go(func() {
				<-start
				if res, err := c.Get(ctx, "/widgets/default/w", mostRecent); err != nil || res.Entry == nil {
					t.Errorf("consistent get: %+v, %v", res, err)
				}
			})
		}
		close(start)
		wg.Wait()
	}
	n := counter.n.Load() - before
	t.Logf("%d current-revision requests for %d consistent gets", n, bursts*readers)
	if n > bursts*readers/4 {
		t.Errorf("%d current-revision requests for %d consistent gets, want at most %d", n, bursts*readers, bursts*readers/4)
	}
}
