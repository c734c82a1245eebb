package etcd_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/etcd"
	"github.com/kapi-dev/kapi/storage/storagetest"
)

// The benchmarks are storagetest.Bench's, shared with storage/memory so
// that the two backends can be compared. They share one embedded etcd,
// started by the first benchmark, which syncs its writes to disk unless
// -etcd.nofsync is given.

var noFsync = flag.Bool("etcd.nofsync", false, "benchmarks: run the embedded etcd without fsync")

var bench struct {
	once sync.Once
	dir  string
	tb   *benchTB
	srv  *server
	err  error
	runs atomic.Int64
}

// benchTB lets startEtcd run outside a test: its cleanups run in
// TestMain.
type benchTB struct {
	testing.TB
	cleanups []func()
}

func (b *benchTB) Cleanup(f func()) { b.cleanups = append(b.cleanups, f) }
func (b *benchTB) Helper()          {}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.tb != nil {
		for i := len(bench.tb.cleanups) - 1; i >= 0; i-- {
			bench.tb.cleanups[i]()
		}
	}
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

// benchStore returns a store on the shared etcd with the given prefix.
func benchStore(b *testing.B, prefix string) *etcd.Store {
	bench.once.Do(func() {
		bench.dir, bench.err = os.MkdirTemp("", "kapi-etcd-bench")
		if bench.err != nil {
			return
		}
		bench.tb = &benchTB{TB: b}
		bench.srv = startEtcd(bench.tb, bench.dir, !*noFsync)
		bench.tb.TB = nil // b is only valid during the start
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return etcd.New(bench.srv.cli, etcd.Options{Prefix: prefix})
}

// BenchmarkStore runs the shared storage benchmarks. Those reading or
// updating the 10,000 filled keys share the prefix /fill, which
// storagetest.Bench fills only once; Create grows its own /create, and
// every run of WatchFanout gets a fresh /fanoutN.
func BenchmarkStore(b *testing.B) {
	storagetest.Bench(b, func(b *testing.B) storage.Interface {
		switch name := b.Name(); name[strings.LastIndex(name, "/")+1:] {
		case "Create":
			return benchStore(b, "/create")
		case "WatchFanout":
			return benchStore(b, fmt.Sprintf("/fanout%d", bench.runs.Add(1)))
		default:
			return benchStore(b, "/fill")
		}
	})
}
