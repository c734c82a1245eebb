package watch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kapi-dev/kapi/internal/btree"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/storage"
)

// The defaults of [Options].
const (
	DefaultEventWindow         = 10000
	DefaultEventWindowDuration = 75 * time.Second
	DefaultEventWindowBytes    = 256 << 20
	DefaultSnapshotTTL         = 75 * time.Second
	DefaultWatcherBuffer       = 100
	DefaultBookmarkInterval    = time.Minute
	DefaultFreshnessTimeout    = 3 * time.Second
	DefaultStallTimeout        = 10 * time.Second
)

// Options configures a [Cache]. The zero value gives the defaults.
type Options struct {
	// EventWindow is the most events the window keeps; a watch can start
	// from any revision whose later events are all still in the window.
	// Zero or less means DefaultEventWindow (10000).
	EventWindow int
	// EventWindowDuration is how long an event stays in the window at
	// most. Zero or less means DefaultEventWindowDuration (75s).
	EventWindowDuration time.Duration
	// EventWindowBytes bounds the stored bytes the window's events hold:
	// each event counts its object's new and previous values. When a
	// change takes the window over it, the oldest events are dropped (the
	// newest is always kept), and a watch from before them is told 410
	// Expired as for the count and age bounds. Zero means
	// DefaultEventWindowBytes (256 MiB); negative means no byte bound.
	EventWindowBytes int64
	// SnapshotTTL is how long the state at a past revision stays readable
	// from memory (for Exact and continuation lists) after a later change
	// replaced it, within the limits of the event window. Older reads go to
	// the store. Zero means DefaultSnapshotTTL (75s); negative keeps no
	// past states.
	SnapshotTTL time.Duration
	// WatcherBuffer is the capacity of each watcher's channel. Zero or
	// less means DefaultWatcherBuffer (100).
	WatcherBuffer int
	// StallTimeout is how long a watcher may wait for its consumer to
	// take an event (its channel full, the next event in hand) before it
	// ends with ErrTooSlow. The check runs about once a second, so such a
	// watcher ends within a second after the timeout. Zero or less means
	// DefaultStallTimeout (10s).
	StallTimeout time.Duration
	// BookmarkInterval is how often watchers that allow bookmarks get one.
	// Zero or less means DefaultBookmarkInterval (1m).
	BookmarkInterval time.Duration
	// FreshnessTimeout bounds how long a read or watch waits for the cache
	// to reach the revision it needs. Zero or less means
	// DefaultFreshnessTimeout (3s).
	FreshnessTimeout time.Duration
	// Decode turns a stored value into the object [Entry.Object] returns.
	// It is called at most once per entry that is asked for its object
	// (concurrent first calls aside), so it must be safe for concurrent
	// use and must not keep or modify kv. Nil: entries hold bytes only.
	Decode func(kv *storage.KeyValue) (any, error)
	// Transform, when set, gives the value the cache keeps for a stored
	// value as it enters the cache (loaded, changed, or read from the
	// store for a past revision): kv itself when nothing changes, or a
	// copy with another Value (Key and revisions kept). A server uses it
	// to serve objects stored under an older schema as its current one
	// reads them, once per object version rather than per request. It
	// runs on the goroutine that applies changes, so it must be fast for
	// values it keeps, safe for concurrent use, and must not modify kv.
	// Nil: values are kept as stored.
	Transform func(kv *storage.KeyValue) *storage.KeyValue
	// Index, when set, gives the terms under which the cache indexes an
	// object (say "key=value" for each of its labels), so that a list
	// whose ListOptions.Index names terms reads only the objects that have
	// them. It is called once or twice per change, on the goroutine that
	// applies changes, so it must be fast, safe for concurrent use, and
	// must not keep or modify kv. Nil: no index.
	Index func(kv *storage.KeyValue) []string
	// Clock is the time source for the window's age, snapshot expiry,
	// bookmarks and stalled watchers. Nil means the system clock.
	Clock Clock
	// Counters, when set, receives the cache's counts: event encodings
	// shared between watchers and watchers ended as too slow. Caches may
	// share one.
	Counters *Counters
	// ConsistentRead, when set, is called as each consistent get or list
	// ends (see [Cache.Get]), with whether it was served from the store
	// because the cache did not catch up within FreshnessTimeout, and
	// whether it failed: kube-apiserver's
	// apiserver_watch_cache_consistent_read_total. It must not block.
	ConsistentRead func(fallback, success bool)
}

func (o Options) withDefaults() Options {
	if o.EventWindow <= 0 {
		o.EventWindow = DefaultEventWindow
	}
	if o.EventWindowDuration <= 0 {
		o.EventWindowDuration = DefaultEventWindowDuration
	}
	if o.EventWindowBytes == 0 {
		o.EventWindowBytes = DefaultEventWindowBytes
	}
	if o.SnapshotTTL == 0 {
		o.SnapshotTTL = DefaultSnapshotTTL
	}
	if o.WatcherBuffer <= 0 {
		o.WatcherBuffer = DefaultWatcherBuffer
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = DefaultStallTimeout
	}
	if o.BookmarkInterval <= 0 {
		o.BookmarkInterval = DefaultBookmarkInterval
	}
	if o.FreshnessTimeout <= 0 {
		o.FreshnessTimeout = DefaultFreshnessTimeout
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	return o
}

// Cache mirrors the keys under one prefix of a store and serves reads and
// watches from memory. Create it with [New], stop it with [Cache.Stop].
// All methods are safe for concurrent use. See the package documentation
// for its contracts.
type Cache struct {
	store  storage.Interface
	prefix string
	opts   Options

	cur atomic.Pointer[state]
	// beat is closed and replaced by every housekeeping round: watchers
	// blocked on a full channel wake on it to check whether they stalled.
	beat atomic.Pointer[chan struct{}]

	ctx      context.Context // canceled by Stop
	cancel   context.CancelFunc
	finished chan struct{} // closed when the upstream goroutine returns

	mu       sync.Mutex // guards stopped with watcher registration
	stopped  bool
	watchers sync.WaitGroup
	// active counts the running watchers, whose number sets how long
	// they linger (see linger.go); linger is lingerFor but in tests.
	active atomic.Int64
	linger func(watchers int64) time.Duration
	// grace is progressGrace but in tests.
	grace time.Duration

	up upstream // owned by the upstream goroutine
	// frameBook counts the bytes of the window's encoded events.
	frameBook frameBook
	// windowFrames and storeFrames are what the records of the window's
	// changes and of changes read from the store count their frames in.
	windowFrames, storeFrames *frameSource

	// gens numbers tree changes: every change of a shared tree, by the
	// upstream goroutine or by a reader rebuilding a past state, takes a
	// fresh generation so that it copies the nodes it did not create.
	gens  atomic.Uint64
	snaps snapshots // past states rebuilt for Exact and continuation reads

	// revision and progressCall share the store's current-revision and
	// progress requests between concurrent consistent reads (progressCall is
	// nil when the store takes no progress requests).
	revision, progressCall *sharedCall
}

// The mirror is a copy-on-write B-tree of *Entry ordered by key, never
// nil: the empty mirror is an empty node. The events applied together
// change it with a fresh generation (Cache.nextGen), so a published tree
// is never changed by later events; a (re)list builds its whole tree with
// one generation, in place.
type node = btree.Node[*Entry]

var tree = btree.NewOps(func(e *Entry) string { return e.KV.Key })

// state is one immutable version of the cache, published atomically.
type state struct {
	rev   int64  // every change under the prefix up to rev is applied
	root  *node  // the mirror at rev
	index *pnode // the index of root; nil without Options.Index
	log   evlog  // the event window
	// logBytes is the sum of the window's records' sizes.
	logBytes int64
	// base is the oldest revision a watch can start from: every change
	// after base.rev is in log.
	base  *record
	epoch int64 // bumped by every (re)list: older watchers expire
	// changes counts the states whose contents differ from the one
	// before (an applied event, a relist); progress alone leaves it.
	changes   uint64
	bookmarks int64 // bumped by every bookmark round
	ready     bool  // the first list has been loaded
	stopped   bool
	changed   chan struct{} // closed when the next state is published
}

// New returns a cache of the keys under prefix (which must end in "/")
// and starts it: a background goroutine lists the prefix, then follows
// one watch of it. The cache serves reads as soon as the first list is
// loaded ([Cache.Ready]); until then they wait. Call [Cache.Stop] to stop
// it.
func New(store storage.Interface, prefix string, opts Options) *Cache {
	ctx, cancel := context.WithCancel(context.Background())
	c := &Cache{
		store:    store,
		prefix:   prefix,
		opts:     opts.withDefaults(),
		ctx:      ctx,
		cancel:   cancel,
		finished: make(chan struct{}),
		linger:   lingerFor,
		grace:    progressGrace,
	}
	c.revision = newSharedCall(ctx, store.Revision)
	if pr, ok := store.(storage.ProgressRequester); ok {
		c.progressCall = newSharedCall(ctx, func(ctx context.Context) (int64, error) { return 0, pr.RequestProgress(ctx) })
	}
	c.windowFrames = newFrameSource(c.opts.Counters, &c.frameBook)
	c.storeFrames = newFrameSource(c.opts.Counters, nil)
	st := &state{root: new(node), base: &record{}, changed: make(chan struct{})}
	if c.opts.Index != nil {
		st.index = new(pnode)
	}
	c.cur.Store(st)
	beat := make(chan struct{})
	c.beat.Store(&beat)
	go c.run()
	return c
}

// Stop stops the upstream watch and every watcher (each ends with
// [ErrStopped]) and waits for their goroutines. Calls made after Stop fail
// with ErrStopped. Stop is idempotent.
func (c *Cache) Stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
	c.cancel()
	<-c.finished
	c.watchers.Wait()
}

// Ready waits until the cache has loaded its first list.
func (c *Cache) Ready(ctx context.Context) error {
	for {
		st := c.cur.Load()
		switch {
		case st.stopped:
			return ErrStopped
		case st.ready:
			return nil
		}
		select {
		case <-st.changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Revision returns the cache's revision: every change under the prefix up
// to it has been applied. It is 0 until the first list is loaded.
func (c *Cache) Revision() int64 { return c.cur.Load().rev }

// Changes counts the changes of the cache's contents: it moves when an
// object under the prefix is put or deleted, or the cache lists again,
// and not when only the revision moves (the store's other keys changed).
// A reader that compiled something from the contents compiles it again
// only when Changes moved, without listing them.
func (c *Cache) Changes() uint64 { return c.cur.Load().changes }

// Sync waits until the cache holds every change the store had made when
// Sync was called (it asks the store for its current revision) and returns
// the cache's revision then, which is at least that one. It fails like a
// consistent read: a storage error from the store, or a 504
// TooLargeResourceVersion after [Options.FreshnessTimeout].
func (c *Cache) Sync(ctx context.Context) (int64, error) {
	st, err := c.fresh(ctx, resourceversion.MostRecent, 0)
	if err != nil {
		return 0, err
	}
	return st.rev, nil
}

// publish installs next as the current state and wakes everyone waiting
// for a change. Only the upstream goroutine publishes.
func (c *Cache) publish(next *state) {
	next.changed = make(chan struct{})
	old := c.cur.Swap(next)
	close(old.changed)
}

// fresh returns a state that satisfies a read with the given semantics:
// MostRecent waits for the store's current revision, Any only for the
// first list, NotOlderThan and Exact for rev.
func (c *Cache) fresh(ctx context.Context, sem resourceversion.Semantics, rev int64) (*state, error) {
	switch sem {
	case resourceversion.MostRecent:
		cur, err := c.revision.call(ctx)
		if err != nil {
			if c.ctx.Err() != nil { // the shared request ended with Stop
				return nil, ErrStopped
			}
			return nil, err
		}
		st := c.cur.Load()
		if !st.ready || st.rev >= cur {
			return c.waitFor(ctx, cur)
		}
		if !c.following(st) {
			c.requestProgress(ctx)
			return c.waitFor(ctx, cur)
		}
		return c.waitNudging(ctx, cur)
	case resourceversion.Any:
		return c.waitFor(ctx, 0)
	case resourceversion.NotOlderThan, resourceversion.Exact:
		return c.waitFor(ctx, rev)
	}
	return nil, fmt.Errorf("watch: unsupported read semantics %v", sem)
}

// progressGrace is how long a consistent read of a cache whose own
// events are flowing waits for them before it asks the store for
// progress. The store's revision it waits for is most often that of an
// event of the cache's own on its way, which arrives well within it; a
// request at once would make every watch of the store answer, for every
// read made during writes.
const progressGrace = 2 * time.Millisecond

// following reports whether the cache applied an event within the last
// grace.
func (c *Cache) following(st *state) bool {
	return st.log.end > st.log.first && c.now()-st.log.at(st.log.end-1).at < int64(c.grace)
}

// waitNudging is waitFor(ctx, rev) that asks the store for progress if
// the wait outlasts the grace.
func (c *Cache) waitNudging(ctx context.Context, rev int64) (*state, error) {
	nudge := time.AfterFunc(c.grace, func() { c.requestProgress(ctx) })
	defer nudge.Stop()
	return c.waitFor(ctx, rev)
}

// requestProgress asks the store, when it can be asked, to report the
// upstream watch's progress now rather than at its next period: changes
// elsewhere in the store may have moved its revision past the cache's
// with nothing under the cache's prefix to show for it. Concurrent
// reads share one request sent after they asked.
func (c *Cache) requestProgress(ctx context.Context) {
	if c.progressCall != nil {
		_, _ = c.progressCall.call(ctx)
	}
}

// waitFor returns the first ready state at or after rev, waiting at most
// FreshnessTimeout.
func (c *Cache) waitFor(ctx context.Context, rev int64) (*state, error) {
	st := c.cur.Load()
	if st.ready && st.rev >= rev && !st.stopped {
		return st, nil
	}
	timer := time.NewTimer(c.opts.FreshnessTimeout)
	defer timer.Stop()
	for {
		switch {
		case st.stopped:
			return nil, ErrStopped
		case st.ready && st.rev >= rev:
			return st, nil
		}
		select {
		case <-st.changed:
			st = c.cur.Load()
			continue
		case <-ctx.Done():
			// A deadline (a watch's timeoutSeconds) that passes first
			// ends the wait as the freshness timeout does.
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, ctx.Err()
			}
		case <-timer.C:
		}
		if !st.ready {
			return nil, notReady()
		}
		return nil, tooLarge(st.rev, rev)
	}
}

// heartbeat wakes the watchers blocked on a full channel.
func (c *Cache) heartbeat() {
	next := make(chan struct{})
	close(*c.beat.Swap(&next))
}

// now returns the clock's time in Unix nanoseconds.
func (c *Cache) now() int64 { return c.opts.Clock.Now().UnixNano() }

// nextGen returns a generation no tree change has used.
func (c *Cache) nextGen() uint64 { return c.gens.Add(1) }

// entry makes an Entry for kv with the cache's decoder.
func (c *Cache) entry(kv *storage.KeyValue) *Entry {
	if c.opts.Transform != nil {
		kv = c.opts.Transform(kv)
	}
	return newEntry(kv, c.opts.Decode)
}
