package cluster

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// etcdCluster is an etcd cluster of embedded members on loopback ports,
// each with its own data directory, which can be stopped and restarted
// one by one.
type etcdCluster struct {
	t       *testing.T
	names   []string
	dirs    []string
	clients []url.URL
	peers   []url.URL

	mu      sync.Mutex
	members []*embed.Etcd // nil while stopped
}

// freePort returns a loopback URL on a port free now.
func freePort(t *testing.T) url.URL {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return url.URL{Scheme: "http", Host: ln.Addr().String()}
}

// startCluster starts n members and waits until they are ready (have a
// leader). Members stop in t's cleanup.
func startCluster(t *testing.T, n int) *etcdCluster {
	c := &etcdCluster{t: t, members: make([]*embed.Etcd, n)}
	for i := range n {
		c.names = append(c.names, fmt.Sprintf("m%d", i))
		c.dirs = append(c.dirs, t.TempDir())
		c.clients = append(c.clients, freePort(t))
		c.peers = append(c.peers, freePort(t))
	}
	t.Cleanup(func() {
		for i := range n {
			c.stop(i)
		}
	})
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { errs[i] = c.start(i) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// endpoints are the members' client URLs.
func (c *etcdCluster) endpoints() []string {
	var out []string
	for _, u := range c.clients {
		out = append(out, u.String())
	}
	return out
}

// start runs member i (again, on its data) and waits until it is ready,
// which needs a quorum of members running.
func (c *etcdCluster) start(i int) error {
	cfg := embed.NewConfig()
	cfg.Name = c.names[i]
	cfg.Dir = c.dirs[i]
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.ListenClientUrls = []url.URL{c.clients[i]}
	cfg.AdvertiseClientUrls = []url.URL{c.clients[i]}
	cfg.ListenPeerUrls = []url.URL{c.peers[i]}
	cfg.AdvertisePeerUrls = []url.URL{c.peers[i]}
	var initial []string
	for j, name := range c.names {
		initial = append(initial, name+"="+c.peers[j].String())
	}
	cfg.InitialCluster = strings.Join(initial, ",")
	cfg.InitialClusterToken = "kapi-test"
	// The tests are about availability, not durability on power loss.
	cfg.UnsafeNoFsync = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("member %s: %w", cfg.Name, err)
	}
	c.mu.Lock()
	c.members[i] = e
	c.mu.Unlock()
	select {
	case <-e.Server.ReadyNotify():
		return nil
	case err := <-e.Err():
		return fmt.Errorf("member %s: %w", cfg.Name, err)
	case <-time.After(time.Minute):
		return fmt.Errorf("member %s: not ready after a minute", cfg.Name)
	}
}

// stop stops member i, if it runs.
func (c *etcdCluster) stop(i int) {
	c.mu.Lock()
	e := c.members[i]
	c.members[i] = nil
	c.mu.Unlock()
	if e != nil {
		e.Close()
	}
}

// leader returns the index of the running member that is the leader, or
// -1 when none is.
func (c *etcdCluster) leader() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.members {
		if e != nil && e.Server.Leader() == e.Server.MemberID() {
			return i
		}
	}
	return -1
}

// waitLeader waits until some running member is the leader.
func (c *etcdCluster) waitLeader() int {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if l := c.leader(); l >= 0 {
			return l
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatal("no etcd leader")
	return -1
}
