package server

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/etcd"
	"github.com/kapi-dev/kapi/storage/memory"
)

// The storage backends Config.Storage and --storage name.
const (
	StorageMemory       = "memory"
	StorageEtcd         = "etcd"
	StorageEmbeddedEtcd = "embedded-etcd"
)

// supportedStorage lists the backends for error messages and --help.
const supportedStorage = StorageMemory + ", " + StorageEtcd + ", " + StorageEmbeddedEtcd

// DefaultEtcdPrefix is where the example keeps its keys in etcd.
const DefaultEtcdPrefix = "/kapi"

// etcdStartTimeout bounds the wait for an embedded etcd to be ready (a
// restart replays its write-ahead log first).
const etcdStartTimeout = time.Minute

// opened is a store and what closes it, in order.
type opened struct {
	store  storage.Interface
	closes []func()
	// clientURL is the embedded etcd's client URL, "" otherwise.
	clientURL string
}

// openStorage opens the store cfg names. On error nothing stays open.
func openStorage(cfg Config) (*opened, error) {
	switch cfg.Storage {
	case "", StorageMemory:
		return &opened{store: memory.New(memory.Options{})}, nil
	case StorageEtcd:
		if len(cfg.EtcdEndpoints) == 0 {
			return nil, errors.New("storage etcd needs at least one endpoint (--etcd-endpoints)")
		}
		return openEtcd(cfg, cfg.EtcdEndpoints, nil)
	case StorageEmbeddedEtcd:
		if cfg.DataDir == "" {
			return nil, errors.New("storage embedded-etcd needs a data directory (--data-dir)")
		}
		e, err := startEmbeddedEtcd(cfg.DataDir)
		if err != nil {
			return nil, err
		}
		o, err := openEtcd(cfg, []string{e.Clients[0].Addr().String()}, e.Close)
		if err != nil {
			return nil, err
		}
		o.clientURL = "http://" + e.Clients[0].Addr().String()
		return o, nil
	}
	return nil, fmt.Errorf("unknown storage %q (supported: %s)", cfg.Storage, supportedStorage)
}

// openEtcd connects to etcd and returns a store on it. stop, when not
// nil, stops the etcd after the client is closed (or at once on error).
func openEtcd(cfg Config, endpoints []string, stop func()) (*opened, error) {
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 10 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		if stop != nil {
			stop()
		}
		return nil, fmt.Errorf("etcd client: %w", err)
	}
	prefix := cfg.EtcdPrefix
	if prefix == "" {
		prefix = DefaultEtcdPrefix
	}
	o := &opened{
		store:  etcd.New(cli, etcd.Options{Prefix: prefix, RequestTimeout: cfg.EtcdRequestTimeout, Observer: cfg.etcdObserver}),
		closes: []func(){func() { _ = cli.Close() }},
	}
	if stop != nil {
		o.closes = append(o.closes, stop)
	}
	return o, nil
}

// startEmbeddedEtcd runs a single-member etcd in the process with its
// data in dir, listening for clients and peers on free loopback ports.
// The ports may differ from one start to the next: the member's peer URL
// is only used by other members, and this one has none.
func startEmbeddedEtcd(dir string) (*embed.Etcd, error) {
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.Name = "kapi"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	loopback := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	cfg.ListenClientUrls = []url.URL{loopback}
	cfg.AdvertiseClientUrls = []url.URL{loopback}
	cfg.ListenPeerUrls = []url.URL{loopback}
	cfg.AdvertisePeerUrls = []url.URL{loopback}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("embedded etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, nil
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("embedded etcd: %w", err)
	case <-time.After(etcdStartTimeout):
		e.Close()
		return nil, errors.New("embedded etcd: not ready after a minute")
	}
}
