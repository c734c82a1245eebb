package watch_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// revisionGate counts the store's current-revision requests and holds
// the first one, once it has read the revision, until hold is closed: a
// slow round trip whose answer is already stale when it arrives.
type revisionGate struct {
	storage.Interface
	calls   atomic.Int64
	entered chan struct{} // closed when the first request holds
	hold    chan struct{}
}

func newRevisionGate(s storage.Interface) *revisionGate {
	return &revisionGate{Interface: s, entered: make(chan struct{}), hold: make(chan struct{})}
}

func (g *revisionGate) Revision(ctx context.Context) (int64, error) {
	rev, err := g.Interface.Revision(ctx)
	if g.calls.Add(1) == 1 {
		close(g.entered)
		<-g.hold
	}
	return rev, err
}

// TestConsistentReadsShareRevision holds one current-revision request
// in flight while 64 consistent gets and lists arrive: they all wait for
// one next request rather than sending one each, so the store answers
// two requests for 65 reads.
func TestConsistentReadsShareRevision(t *testing.T) {
	mem := newStore(t, memory.Options{})
	put(t, mem, key(1), "one")
	gate := newRevisionGate(mem)
	counts := &readCounts{calls: map[[2]bool]int{}}
	c := newCache(t, gate, watch.Options{ConsistentRead: counts.record})
	mostRecent := resourceversion.Get{Semantics: resourceversion.MostRecent}
	var wg sync.WaitGroup
	errs := make(chan error, 65)
	read := func(i int) {
		defer wg.Done()
		if i%2 == 0 {
			res, err := c.Get(ctx, key(1), mostRecent)
			if err == nil && (res.Entry == nil || string(res.Entry.KV.Value) != "one") {
				t.Errorf("get: %+v", res.Entry)
			}
			errs <- err
			return
		}
		_, err := c.List(ctx, prefix, watch.ListOptions{})
		errs <- err
	}
	wg.Add(1)
	go read(0)
	<-gate.entered
	for i := 1; i <= 64; i++ {
		wg.Add(1)
		go read(i)
	}
	time.Sleep(100 * time.Millisecond) // let them all queue behind the held request
	close(gate.hold)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := gate.calls.Load(); n != 2 {
		t.Errorf("the store answered %d current-revision requests for 65 consistent reads, want 2", n)
	}
	if fb, ok := counts.get(true, true), counts.get(false, true); fb != 0 || ok != 65 {
		t.Errorf("consistent reads: %d fallbacks, %d from the cache; want 0 and 65", fb, ok)
	}
}

// TestConsistentReadAfterSentRevision checks the rule that makes sharing
// safe: a read that arrives while a current-revision request is in
// flight does not take its answer, which may predate a write
// acknowledged before the read began. The cache is held behind the
// store, so only a revision asked for after the write makes the read
// fall back to the store and see it; the held request's stale answer
// would have let the stale cache serve it.
func TestConsistentReadAfterSentRevision(t *testing.T) {
	mem := newStore(t, memory.Options{})
	put(t, mem, key(1), "old")
	gate := newRevisionGate(mem)
	held := &heldStore{Interface: gate, release: make(chan struct{})}
	defer close(held.release)
	c := newCache(t, held, watch.Options{FreshnessTimeout: 50 * time.Millisecond})
	mostRecent := resourceversion.Get{Semantics: resourceversion.MostRecent}
	first := make(chan error, 1)
	go func() {
		_, err := c.Get(ctx, key(1), mostRecent)
		first <- err
	}()
	<-gate.entered // its revision read, the answer on its way
	put(t, mem, key(1), "new")
	second := make(chan watch.GetResult, 1)
	go func() {
		res, err := c.Get(ctx, key(1), mostRecent)
		if err != nil {
			t.Error(err)
		}
		second <- res
	}()
	time.Sleep(50 * time.Millisecond) // the second read arrives while the first request is in flight
	close(gate.hold)
	if res := <-second; res.Entry == nil || string(res.Entry.KV.Value) != "new" {
		t.Fatalf("a consistent get after an acknowledged write read %+v, want the write", res.Entry)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}
