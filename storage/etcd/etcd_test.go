package etcd_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/etcd"
	"github.com/kapi-dev/kapi/storage/storagetest"
)

// progress is the progress notification interval of the tests: the
// stores' ProgressInterval (and the embedded etcd's own interval in
// TestWatchProgressServer).
const progress = 100 * time.Millisecond

// server is an embedded single-member etcd on loopback ports.
type server struct {
	e    *embed.Etcd
	cli  *clientv3.Client
	stop func() // stops etcd; safe to call again
}

// startEtcd runs a single-member etcd in the test process, its data in
// dir, and returns it with a client. Both stop in tb's cleanup. configure,
// when given, adjusts etcd's configuration.
func startEtcd(tb testing.TB, dir string, fsync bool, configure ...func(*embed.Config)) *server {
	tb.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	loopback := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	cfg.ListenClientUrls = []url.URL{loopback}
	cfg.AdvertiseClientUrls = []url.URL{loopback}
	cfg.ListenPeerUrls = []url.URL{loopback}
	cfg.AdvertisePeerUrls = []url.URL{loopback}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = !fsync
	for _, f := range configure {
		f(cfg)
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		tb.Fatalf("starting etcd: %v", err)
	}
	stop := sync.OnceFunc(e.Close)
	tb.Cleanup(stop)
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		tb.Fatalf("etcd: %v", err)
	case <-time.After(60 * time.Second):
		tb.Fatal("etcd did not start")
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{e.Clients[0].Addr().String()},
		DialTimeout: 10 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		tb.Fatalf("etcd client: %v", err)
	}
	tb.Cleanup(func() { cli.Close() })
	return &server{e: e, cli: cli, stop: stop}
}

var suiteOptions = storagetest.Options{ProgressNotifyInterval: progress}

// TestConformance runs the suite on one etcd, each subtest on a store with
// its own prefix. Subtests run one after another, so the suite's
// assumption that nothing else writes while a subtest runs holds even
// though revisions are etcd-wide.
func TestConformance(t *testing.T) {
	srv := startEtcd(t, t.TempDir(), false)
	storagetest.RunOptions(t, func(t *testing.T) storage.Interface {
		return etcd.New(srv.cli, etcd.Options{Prefix: "/" + t.Name()})
	}, suiteOptions)
}

// TestConformanceFreshEtcd runs the suite with each subtest on a new etcd
// and no prefix.
func TestConformanceFreshEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an etcd per subtest")
	}
	storagetest.RunOptions(t, func(t *testing.T) storage.Interface {
		return etcd.New(startEtcd(t, t.TempDir(), false).cli, etcd.Options{})
	}, suiteOptions)
}

// fixture is one store on its own etcd.
type fixture struct {
	*testing.T
	srv *server
	s   *etcd.Store
	ctx context.Context
}

func newFixture(t *testing.T, prefix string) *fixture {
	srv := startEtcd(t, t.TempDir(), false)
	return &fixture{T: t, srv: srv, s: etcd.New(srv.cli, etcd.Options{Prefix: prefix}), ctx: context.Background()}
}

func (f *fixture) put(key, value string, expected int64) *storage.KeyValue {
	f.Helper()
	resp, err := f.s.OptimisticPut(f.ctx, key, []byte(value), expected, storage.PutOptions{})
	if err != nil || !resp.Succeeded {
		f.Fatalf("OptimisticPut(%q, %d) = %+v, %v", key, expected, resp, err)
	}
	return resp.KV
}

func (f *fixture) del(key string, expected int64) int64 {
	f.Helper()
	resp, err := f.s.OptimisticDelete(f.ctx, key, expected, storage.DeleteOptions{})
	if err != nil || !resp.Succeeded {
		f.Fatalf("OptimisticDelete(%q, %d) = %+v, %v", key, expected, resp, err)
	}
	return resp.Revision
}

func (f *fixture) revision() int64 {
	f.Helper()
	rev, err := f.s.Revision(f.ctx)
	if err != nil {
		f.Fatal(err)
	}
	return rev
}

func wantCode(t *testing.T, what string, err error, code storage.ErrorCode, rev int64) {
	t.Helper()
	var se *storage.Error
	if !errors.As(err, &se) || se.Code != code || se.Revision != rev {
		t.Fatalf("%s: error %#v, want code %d revision %d", what, err, code, rev)
	}
}

// next returns the next watch response, failing after a timeout.
func next(t *testing.T, ch <-chan storage.WatchResponse) (storage.WatchResponse, bool) {
	t.Helper()
	select {
	case resp, ok := <-ch:
		return resp, ok
	case <-time.After(10 * time.Second):
		t.Fatal("no watch response")
	}
	panic("unreachable")
}

// nextEvents skips progress notifications.
func nextEvents(t *testing.T, ch <-chan storage.WatchResponse) storage.WatchResponse {
	t.Helper()
	for {
		resp, ok := next(t, ch)
		if !ok {
			t.Fatal("watch closed")
		}
		if resp.Err != nil || len(resp.Events) > 0 {
			return resp
		}
	}
}

func TestRevisionsAndRawKeys(t *testing.T) {
	f := newFixture(t, "/kapi")
	if rev := f.revision(); rev != 1 {
		t.Fatalf("a new etcd is at revision %d, want 1", rev)
	}
	value := []byte{0, 1, 2, 0xff, '"'}
	a := f.put("/widgets/a", string(value), 0)
	if a.CreateRevision != 2 || a.ModRevision != 2 {
		t.Fatalf("create: %+v", a)
	}
	b := f.put("/widgets/a", "second", a.ModRevision)
	c := f.put("/widgets/a", "third", b.ModRevision)
	if b.CreateRevision != 2 || b.ModRevision != 3 || c.CreateRevision != 2 || c.ModRevision != 4 {
		t.Fatalf("updates keep the CreateRevision: %+v %+v", b, c)
	}
	// The etcd key is the prefix and the storage key; the value is stored
	// as given.
	raw, err := f.srv.cli.Get(f.ctx, "/kapi/widgets/a", clientv3.WithRev(2))
	if err != nil || len(raw.Kvs) != 1 || !bytes.Equal(raw.Kvs[0].Value, value) {
		t.Fatalf("raw etcd read: %+v, %v", raw, err)
	}
	g, err := f.s.Get(f.ctx, "/widgets/a", storage.GetOptions{})
	if err != nil || g.KV.Key != "/widgets/a" || g.KV.CreateRevision != 2 || g.KV.ModRevision != 4 || string(g.KV.Value) != "third" {
		t.Fatalf("Get: %+v, %v", g.KV, err)
	}
	d := f.del("/widgets/a", c.ModRevision)
	again := f.put("/widgets/a", "again", 0)
	if d != 5 || again.CreateRevision != 6 || again.ModRevision != 6 {
		t.Fatalf("delete at %d, re-create %+v", d, again)
	}
	// Keys outside the prefix are invisible.
	if _, err := f.srv.cli.Put(f.ctx, "/widgets/outside", "x"); err != nil {
		t.Fatal(err)
	}
	l, err := f.s.List(f.ctx, "/widgets/", storage.ListOptions{})
	if err != nil || len(l.KVs) != 1 || l.KVs[0].Key != "/widgets/a" || l.Revision != 7 {
		t.Fatalf("List: %+v, %v", l, err)
	}
}

// TestPrefixes shares one client between stores with different prefixes.
func TestPrefixes(t *testing.T) {
	f := newFixture(t, "/one")
	other := etcd.New(f.srv.cli, etcd.Options{Prefix: "/one-two"})
	ctx, cancel := context.WithCancel(f.ctx)
	defer cancel()
	w := f.s.Watch(ctx, "/w/", storage.WatchOptions{})
	if _, err := other.OptimisticPut(f.ctx, "/w/a", []byte("other"), 0, storage.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	mine := f.put("/w/b", "mine", 0)
	resp := nextEvents(t, w)
	if len(resp.Events) != 1 || resp.Events[0].KV.Key != "/w/b" || resp.Events[0].KV.ModRevision != mine.ModRevision {
		t.Fatalf("watch: %+v", resp)
	}
	for s, want := range map[storage.Interface]string{f.s: "/w/b", other: "/w/a"} {
		l, err := s.List(f.ctx, "/w/", storage.ListOptions{})
		if err != nil || len(l.KVs) != 1 || l.KVs[0].Key != want {
			t.Fatalf("List: %+v, %v; want only %s", l.KVs, err, want)
		}
	}
}

// TestCompaction checks how etcd's compaction maps onto the storage
// contract: a compaction at C refuses reads at C and below and reports C.
func TestCompaction(t *testing.T) {
	f := newFixture(t, "")
	kv := f.put("/w/a", "0", 0) // 2
	var revs []int64
	for i := 1; i <= 5; i++ {
		kv = f.put("/w/a", fmt.Sprint(i), kv.ModRevision)
		revs = append(revs, kv.ModRevision) // 3..7
	}
	created := f.put("/w/b", "b", 0) // 8
	updated := f.put("/w/a", "6", kv.ModRevision)
	cur := updated.ModRevision // 9

	c := revs[2] // 5
	if err := f.s.Compact(f.ctx, c); err != nil {
		t.Fatal(err)
	}
	for _, rev := range []int64{2, c - 1, c} {
		_, err := f.s.Get(f.ctx, "/w/a", storage.GetOptions{Revision: rev})
		wantCode(t, fmt.Sprintf("Get at %d", rev), err, storage.ErrCompacted, c)
		_, err = f.s.List(f.ctx, "/w/", storage.ListOptions{Revision: rev})
		wantCode(t, fmt.Sprintf("List at %d", rev), err, storage.ErrCompacted, c)
	}
	if g, err := f.s.Get(f.ctx, "/w/a", storage.GetOptions{Revision: c + 1}); err != nil || string(g.KV.Value) != "4" {
		t.Fatalf("Get after the compacted revision: %+v, %v", g.KV, err)
	}
	// Compacting again, lower, or at 0 does nothing; the future fails.
	for _, rev := range []int64{c, c - 1, 0} {
		if err := f.s.Compact(f.ctx, rev); err != nil {
			t.Fatalf("Compact(%d): %v", rev, err)
		}
	}
	wantCode(t, "Compact in the future", f.s.Compact(f.ctx, cur+1), storage.ErrFutureRevision, cur)
	_, err := f.s.Get(f.ctx, "/w/a", storage.GetOptions{Revision: cur + 1})
	wantCode(t, "Get in the future", err, storage.ErrFutureRevision, cur)

	// Watches: etcd refuses one whose first event is compacted.
	ctx, cancel := context.WithCancel(f.ctx)
	defer cancel()
	resp, _ := next(t, f.s.Watch(ctx, "/w/", storage.WatchOptions{Revision: c - 2}))
	wantCode(t, "watch after C-2", resp.Err, storage.ErrCompacted, c)
	// After C-1, the update at C has lost its previous value.
	ch := f.s.Watch(ctx, "/w/", storage.WatchOptions{Revision: c - 1})
	resp = nextEvents(t, ch)
	wantCode(t, "watch after C-1", resp.Err, storage.ErrCompacted, c)
	if _, ok := next(t, ch); ok {
		t.Fatal("the watch goes on after its error")
	}
	// After C, every event is complete.
	resp = nextEvents(t, f.s.Watch(ctx, "/w/", storage.WatchOptions{Revision: c}))
	if resp.Err != nil || resp.Events[0].KV.ModRevision != c+1 || string(resp.Events[0].PrevKV.Value) != "3" {
		t.Fatalf("watch after C: %+v", resp)
	}

	// A compaction by someone else, where the event at C is a create.
	c2 := created.ModRevision
	if _, err := f.srv.cli.Compact(f.ctx, c2); err != nil {
		t.Fatal(err)
	}
	_, err = f.s.Get(f.ctx, "/w/b", storage.GetOptions{Revision: c2})
	wantCode(t, "Get after an outside compaction", err, storage.ErrCompacted, c2)
	resp = nextEvents(t, f.s.Watch(ctx, "/w/b", storage.WatchOptions{Revision: c2 - 1}))
	if resp.Err != nil || len(resp.Events) != 1 || !resp.Events[0].IsCreate() {
		t.Fatalf("watch after C-1 whose event at C is a create: %+v", resp)
	}
}

// TestWatchResume reads part of a watch, stops it, and resumes from the
// last revision seen: every event arrives exactly once.
func TestWatchResume(t *testing.T) {
	f := newFixture(t, "/resume")
	ctx, cancel := context.WithCancel(f.ctx)
	ch := f.s.Watch(ctx, "/w/", storage.WatchOptions{})
	var want []int64
	kv := f.put("/w/a", "0", 0)
	want = append(want, kv.ModRevision)
	for i := 1; i < 10; i++ {
		kv = f.put("/w/a", fmt.Sprint(i), kv.ModRevision)
		want = append(want, kv.ModRevision)
	}
	var got []int64
	var last int64
	for len(got) < 4 {
		resp := nextEvents(t, ch)
		for _, ev := range resp.Events {
			if len(got) < 4 {
				got = append(got, ev.KV.ModRevision)
				last = ev.KV.ModRevision
			}
		}
	}
	cancel()
	for range ch { // closes after the cancel
	}
	// More writes while no watch runs.
	for i := 10; i < 15; i++ {
		kv = f.put("/w/a", fmt.Sprint(i), kv.ModRevision)
		want = append(want, kv.ModRevision)
	}
	ctx, cancel = context.WithCancel(f.ctx)
	defer cancel()
	ch = f.s.Watch(ctx, "/w/", storage.WatchOptions{Revision: last})
	for len(got) < len(want) {
		resp := nextEvents(t, ch)
		if resp.Err != nil {
			t.Fatal(resp.Err)
		}
		for _, ev := range resp.Events {
			if ev.PrevKV == nil || ev.PrevKV.ModRevision != got[len(got)-1] {
				t.Fatalf("event %+v: previous value %+v, want the one at %d", ev.KV, ev.PrevKV, got[len(got)-1])
			}
			got = append(got, ev.KV.ModRevision)
		}
		if resp.Revision != got[len(got)-1] {
			t.Fatalf("response revision %d, last event at %d", resp.Revision, got[len(got)-1])
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events at %v, want %v", got, want)
	}
}

// waitProgress waits for a progress notification at rev on ch.
func waitProgress(t *testing.T, ch <-chan storage.WatchResponse, rev int64) {
	t.Helper()
	for {
		resp, ok := next(t, ch)
		if !ok || resp.Err != nil || len(resp.Events) > 0 {
			t.Fatalf("unexpected response: %+v (open %v)", resp, ok)
		}
		if resp.Revision == rev {
			return
		}
	}
}

// quiet fails if ch delivers anything within a while.
func quiet(t *testing.T, ch <-chan storage.WatchResponse) {
	t.Helper()
	select {
	case resp, ok := <-ch:
		t.Fatalf("unexpected response: %+v (open %v)", resp, ok)
	case <-time.After(3 * progress):
	}
}

// TestWatchProgressServer checks etcd's own periodic notifications, with
// the store's requests off: they carry the etcd-wide revision, advanced
// by writes outside the prefix.
func TestWatchProgressServer(t *testing.T) {
	srv := startEtcd(t, t.TempDir(), false, func(cfg *embed.Config) {
		cfg.WatchProgressNotifyInterval = progress
	})
	s := etcd.New(srv.cli, etcd.Options{ProgressInterval: -1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := s.Watch(ctx, "/idle/", storage.WatchOptions{ProgressNotify: true})
	plain := s.Watch(ctx, "/idle/", storage.WatchOptions{})
	resp, err := s.OptimisticPut(ctx, "/busy/a", nil, 0, storage.PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitProgress(t, ch, resp.Revision)
	quiet(t, plain)
}

// TestRequestProgress checks progress on request, with etcd's periodic
// notifications at their default (ten minutes). (The server's interval is
// a process-wide variable of etcd's: set it back explicitly.)
func TestRequestProgress(t *testing.T) {
	srv := startEtcd(t, t.TempDir(), false, func(cfg *embed.Config) {
		cfg.WatchProgressNotifyInterval = 10 * time.Minute
	})
	f := &fixture{T: t, srv: srv, s: etcd.New(srv.cli, etcd.Options{}), ctx: context.Background()}
	s := etcd.New(f.srv.cli, etcd.Options{ProgressInterval: -1})
	ctx, cancel := context.WithCancel(f.ctx)
	defer cancel()
	ch := s.Watch(ctx, "/idle/", storage.WatchOptions{ProgressNotify: true})
	plain := s.Watch(ctx, "/idle/", storage.WatchOptions{})
	rev := f.put("/busy/a", "x", 0).ModRevision
	quiet(t, ch) // no periodic notification
	if err := s.RequestProgress(ctx); err != nil {
		t.Fatal(err)
	}
	waitProgress(t, ch, rev)
	quiet(t, plain)

	// The store's periodic requests, on the default interval.
	periodic := f.s.Watch(ctx, "/idle/", storage.WatchOptions{ProgressNotify: true})
	rev = f.put("/busy/b", "x", 0).ModRevision
	waitProgress(t, periodic, rev)
	waitProgress(t, ch, rev) // the requests reach every watch that asked
	quiet(t, plain)
}

// TestUnavailable stops etcd under the store.
func TestUnavailable(t *testing.T) {
	f := newFixture(t, "")
	f.put("/w/a", "x", 0)
	f.srv.stop()
	ctx, cancel := context.WithTimeout(f.ctx, 500*time.Millisecond)
	defer cancel()
	_, err := f.s.Get(ctx, "/w/a", storage.GetOptions{})
	if !storage.IsUnavailable(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Get from a stopped etcd: %v", err)
	}
	// A closed client.
	f.srv.cli.Close()
	_, err = f.s.OptimisticPut(f.ctx, "/w/b", nil, 0, storage.PutOptions{})
	if !storage.IsUnavailable(err) {
		t.Fatalf("Put through a closed client: %v", err)
	}
	resp, ok := next(t, f.s.Watch(f.ctx, "/w/", storage.WatchOptions{Revision: 1}))
	if !ok || !storage.IsUnavailable(resp.Err) {
		t.Fatalf("Watch through a closed client: %+v (open %v)", resp, ok)
	}
	// A cancelled caller gets its own error.
	ctx, cancel = context.WithCancel(f.ctx)
	cancel()
	if _, err := f.s.Revision(ctx); !errors.Is(err, context.Canceled) || storage.IsUnavailable(err) {
		t.Fatalf("Revision with a cancelled context: %v", err)
	}
}

// TestRequestTimeout checks that with etcd gone, every request fails
// once the store's request timeout passes, although the caller set no
// deadline (the client would retry reads forever): with ErrUnavailable,
// or, for a write, which etcd may apply when it comes back, ErrTimeout.
func TestRequestTimeout(t *testing.T) {
	f := newFixture(t, "")
	f.put("/w/a", "x", 0)
	const timeout = 300 * time.Millisecond
	s := etcd.New(f.srv.cli, etcd.Options{RequestTimeout: timeout})
	f.srv.stop()
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		call func() error
		code storage.ErrorCode
	}{
		{"Get", func() error { _, err := s.Get(ctx, "/w/a", storage.GetOptions{}); return err }, storage.ErrUnavailable},
		{"Get at a revision", func() error { _, err := s.Get(ctx, "/w/a", storage.GetOptions{Revision: 2}); return err }, storage.ErrUnavailable},
		{"List", func() error { _, err := s.List(ctx, "/w/", storage.ListOptions{}); return err }, storage.ErrUnavailable},
		{"Revision", func() error { _, err := s.Revision(ctx); return err }, storage.ErrUnavailable},
		{"OptimisticPut", func() error {
			_, err := s.OptimisticPut(ctx, "/w/b", nil, 0, storage.PutOptions{})
			return err
		}, storage.ErrTimeout},
		{"OptimisticDelete", func() error {
			_, err := s.OptimisticDelete(ctx, "/w/a", 2, storage.DeleteOptions{})
			return err
		}, storage.ErrTimeout},
		{"Compact", func() error { return s.Compact(ctx, 2) }, storage.ErrUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			done := make(chan error, 1)
			go func() { done <- tc.call() }()
			select {
			case err := <-done:
				var se *storage.Error
				if !errors.As(err, &se) || se.Code != tc.code {
					t.Fatalf("error %v, want code %d", err, tc.code)
				}
				if d := time.Since(start); d > 10*timeout {
					t.Fatalf("took %v with a timeout of %v", d, timeout)
				}
			case <-time.After(20 * timeout):
				t.Fatal("no answer: the request timeout does not apply")
			}
		})
	}
}
