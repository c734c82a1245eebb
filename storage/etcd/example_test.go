package etcd_test

import (
	"context"
	"fmt"
	"log"
	"net/url"
	"os"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/etcd"
)

func Example() {
	// Run a single-member etcd in the process, for the example; a real
	// deployment connects the client to its cluster.
	dir, err := os.MkdirTemp("", "etcd-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	loopback := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{loopback}, []url.URL{loopback}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{loopback}, []url.URL{loopback}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	server, err := embed.StartEtcd(cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer server.Close()
	<-server.Server.ReadyNotify()

	client, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{server.Clients[0].Addr().String()},
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	// Every key of the store lives under /kapi in etcd.
	var s storage.Interface = etcd.New(client, etcd.Options{Prefix: "/kapi"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Watch the widgets from etcd's first revision.
	events := s.Watch(ctx, "/widgets/", storage.WatchOptions{Revision: 1})

	// Create (expected revision 0: the key must not exist), then update
	// with compare-and-swap on the last ModRevision.
	created, _ := s.OptimisticPut(ctx, "/widgets/a", []byte("red"), 0, storage.PutOptions{})
	updated, _ := s.OptimisticPut(ctx, "/widgets/a", []byte("blue"), created.KV.ModRevision, storage.PutOptions{})
	stale, _ := s.OptimisticPut(ctx, "/widgets/a", []byte("green"), created.KV.ModRevision, storage.PutOptions{})
	fmt.Println("create:", created.Succeeded, created.Revision)
	fmt.Println("update:", updated.Succeeded, updated.Revision, "created at", updated.KV.CreateRevision)
	fmt.Println("stale update:", stale.Succeeded, string(stale.KV.Value))

	// Read the past.
	old, _ := s.Get(ctx, "/widgets/a", storage.GetOptions{Revision: created.Revision})
	fmt.Println("at revision", old.Revision, "value", string(old.KV.Value))

	// The etcd key carries the prefix.
	raw, _ := client.Get(ctx, "/kapi/widgets/a")
	fmt.Println("etcd key:", string(raw.Kvs[0].Key))

	// Each event carries the previous value.
	for n := 0; n < 2; {
		resp := <-events
		for _, ev := range resp.Events {
			prev := "<none>"
			if ev.PrevKV != nil {
				prev = string(ev.PrevKV.Value)
			}
			fmt.Printf("event at %d: %s (was %s)\n", ev.KV.ModRevision, ev.KV.Value, prev)
			n++
		}
	}
	// Output:
	// create: true 2
	// update: true 3 created at 2
	// stale update: false blue
	// at revision 2 value red
	// etcd key: /kapi/widgets/a
	// event at 2: red (was <none>)
	// event at 3: blue (was red)
}
