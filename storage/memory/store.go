package memory

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kapi-dev/kapi/internal/btree"
	"github.com/kapi-dev/kapi/storage"
)

// The defaults of [Options].
const (
	DefaultHistoryWindow = 10000
	DefaultHistoryBytes  = 128 << 20
	// DefaultCompactionInterval is kube-apiserver's default
	// --etcd-compaction-interval.
	DefaultCompactionInterval = 5 * time.Minute
	DefaultWatchBuffer        = 100
	DefaultProgressInterval   = time.Second
)

// Options configures a [Store]. The zero value gives the defaults.
type Options struct {
	// HistoryWindow is how many past revisions the store keeps for
	// watches and for reads at old revisions; older ones are compacted
	// automatically. Memory grows with it: every retained revision keeps
	// its event and the value that event replaced. Zero or less means
	// DefaultHistoryWindow (10000).
	HistoryWindow int
	// HistoryBytes bounds the bytes of past values the history keeps (the
	// values later writes replaced or deleted, which only reads at old
	// revisions and watches from them need): when a write takes them over
	// the bound, the oldest revisions are compacted until they fit, so
	// that large objects cannot make the window's memory unbounded. Zero
	// or less means DefaultHistoryBytes (128 MiB).
	HistoryBytes int64
	// CompactionInterval is how often the store compacts on its own, as
	// kube-apiserver has etcd compacted: each time it compacts through
	// the revision that was current one interval earlier, so that past
	// values live between one and two intervals, however few writes come.
	// Zero means DefaultCompactionInterval (5m); negative turns it off.
	CompactionInterval time.Duration
	// Ticks, when set, replaces the system clock of periodic compaction:
	// it returns a channel that receives once every interval and a
	// function that stops it. Tests drive compaction with a fake clock
	// through it; nil means a [time.Ticker].
	Ticks func(interval time.Duration) (ticks <-chan time.Time, stop func())
	// WatchBuffer is the capacity of each watch channel, in responses.
	// Zero or less means DefaultWatchBuffer (100).
	WatchBuffer int
	// ProgressInterval is how often a watch that asked for progress
	// notifications receives one when it had no events in the interval.
	// Zero or less means DefaultProgressInterval (1s).
	ProgressInterval time.Duration
}

// Store is an in-memory [storage.Interface]. Create it with [New] and stop
// it with [Store.Close].
type Store struct {
	opts Options

	mu  sync.Mutex // serializes writes
	cur atomic.Pointer[state]

	// watching are the running watches, which writes mark and wake
	// (see watcher); replaced whole under mu.
	watching atomic.Pointer[[]*watcher]
	// progress wakes the watches with ProgressNotify for RequestProgress.
	progress      broadcast
	progressAsked atomic.Uint64 // RequestProgress calls

	closeMu   sync.Mutex // guards closed with watcher registration
	closed    atomic.Bool
	done      chan struct{}
	watchers  sync.WaitGroup
	closeOnce sync.Once
}

var (
	_ storage.Interface         = (*Store)(nil)
	_ storage.ProgressRequester = (*Store)(nil)
)

// The current keys are a copy-on-write B-tree of *storage.KeyValue
// ordered by key. Each write changes it with its revision as the
// generation, so every published state's tree stays as it is.
type node = btree.Node[*storage.KeyValue]

var tree = btree.NewOps(func(kv *storage.KeyValue) string { return kv.Key })

// state is one immutable version of the store, published atomically by
// every write.
type state struct {
	rev       int64
	compacted int64   // revisions at or below it are gone
	root      *node   // nil when no key was ever written
	hist      history // events of revisions (compacted, rev]
	histBytes int64   // bytes of the past values hist keeps
	// staleBytes counts the past values of compacted revisions whose
	// events are still in hist's first chunk, which is only dropped
	// whole; past a bound they are released (see releaseStale).
	staleBytes int64
}

var errClosed = errors.New("memory store closed")

// initialRevision is the revision of the empty store. No write made it, so
// the event log holds events from the revision after it on.
const initialRevision = 1

// New returns an empty store at revision 1.
func New(opts Options) *Store {
	if opts.HistoryWindow <= 0 {
		opts.HistoryWindow = DefaultHistoryWindow
	}
	if opts.HistoryBytes <= 0 {
		opts.HistoryBytes = DefaultHistoryBytes
	}
	if opts.WatchBuffer <= 0 {
		opts.WatchBuffer = DefaultWatchBuffer
	}
	if opts.ProgressInterval <= 0 {
		opts.ProgressInterval = DefaultProgressInterval
	}
	if opts.CompactionInterval == 0 {
		opts.CompactionInterval = DefaultCompactionInterval
	}
	s := &Store{opts: opts, done: make(chan struct{})}
	s.cur.Store(&state{rev: initialRevision})
	if opts.CompactionInterval > 0 {
		s.watchers.Add(1)
		go s.compactPeriodically(opts.CompactionInterval)
	}
	return s
}

// compactPeriodically compacts, at every tick, through the revision that
// was current at the tick before, until the store is closed.
func (s *Store) compactPeriodically(every time.Duration) {
	defer s.watchers.Done()
	ticks, stop := s.ticker(every)
	defer stop()
	var last int64
	for {
		select {
		case <-s.done:
			return
		case <-ticks:
		}
		if last > 0 {
			_ = s.Compact(context.Background(), last)
		}
		last = s.cur.Load().rev
	}
}

// ticker returns the ticks of periodic compaction and their stop function.
func (s *Store) ticker(every time.Duration) (<-chan time.Time, func()) {
	if s.opts.Ticks != nil {
		return s.opts.Ticks(every)
	}
	t := time.NewTicker(every)
	return t.C, t.Stop
}

// Close stops every watch, each with a last response whose Err is an
// ErrUnavailable [storage.Error] when its channel has room, and waits for
// their goroutines to end. Every later call fails with ErrUnavailable.
func (s *Store) Close() {
	s.closeOnce.Do(func() {
		s.closeMu.Lock()
		s.closed.Store(true)
		s.closeMu.Unlock()
		close(s.done)
		s.watchers.Wait()
	})
}

// check returns the error a call must fail with before it starts.
func (s *Store) check(ctx context.Context) error {
	if s.closed.Load() {
		return &storage.Error{Code: storage.ErrUnavailable, Err: errClosed}
	}
	return ctx.Err()
}

// readRevision resolves a requested read revision against st.
func (st *state) readRevision(rev int64) (int64, error) {
	switch {
	case rev == 0:
		return st.rev, nil
	case rev > st.rev:
		return 0, &storage.Error{Code: storage.ErrFutureRevision, Revision: st.rev}
	case rev <= st.compacted || rev < 0:
		return 0, &storage.Error{Code: storage.ErrCompacted, Revision: st.compacted}
	}
	return rev, nil
}

// Get implements [storage.Interface]. The returned KeyValue is shared:
// callers must not modify it or its Value.
func (s *Store) Get(ctx context.Context, key string, opts storage.GetOptions) (storage.GetResponse, error) {
	if err := s.check(ctx); err != nil {
		return storage.GetResponse{}, err
	}
	st := s.cur.Load()
	rev, err := st.readRevision(opts.Revision)
	if err != nil {
		return storage.GetResponse{}, err
	}
	return storage.GetResponse{KV: st.get(key, rev), Revision: rev}, nil
}

// get returns key's value at rev, a retained revision.
func (st *state) get(key string, rev int64) *storage.KeyValue {
	kv, _ := tree.Get(st.root, key)
	if rev == st.rev || kv != nil && kv.ModRevision <= rev {
		return kv
	}
	// The key changed after rev: the first change's previous value is
	// the value at rev.
	for r := rev + 1; r <= st.rev; r++ {
		if ev := st.hist.at(r); ev.KV.Key == key {
			return ev.PrevKV
		}
	}
	return nil
}

// Revision implements [storage.Interface].
func (s *Store) Revision(ctx context.Context) (int64, error) {
	if err := s.check(ctx); err != nil {
		return 0, err
	}
	return s.cur.Load().rev, nil
}

// OptimisticPut implements [storage.Interface]. The store keeps a copy of
// value, or value itself when opts.ValueOwned hands it over; the returned
// KeyValue is shared and must not be modified.
func (s *Store) OptimisticPut(ctx context.Context, key string, value []byte, expectedRevision int64, opts storage.PutOptions) (storage.PutResponse, error) {
	if err := s.check(ctx); err != nil {
		return storage.PutResponse{}, err
	}
	if opts.ValueOwned {
		// Readers share the value: an append to it must not write into
		// the spare capacity of the caller's array.
		value = value[:len(value):len(value)]
	} else {
		value = append(make([]byte, 0, len(value)), value...)
	}
	s.mu.Lock()
	st := s.cur.Load()
	prev, _ := tree.Get(st.root, key)
	if !matches(prev, expectedRevision) {
		s.mu.Unlock()
		return storage.PutResponse{KV: prev, Revision: st.rev}, nil
	}
	rev := st.rev + 1
	kv := &storage.KeyValue{Key: key, Value: value, Shared: opts.Shared, CreateRevision: rev, ModRevision: rev}
	if prev != nil {
		// The versions of a key share its string: the history keeps
		// past versions, and the caller's key is often a fresh copy.
		kv.Key, kv.CreateRevision = prev.Key, prev.CreateRevision
	}
	root, _, _ := tree.Put(st.root, kv, uint64(rev))
	s.mark(key, rev)
	s.publish(st, root, storage.Event{Type: storage.EventPut, KV: kv, PrevKV: prev})
	s.mu.Unlock()
	s.wakeFor(key)
	return storage.PutResponse{Succeeded: true, KV: kv, Revision: rev}, nil
}

// KeepsShared implements [storage.SharedKeeper]: a value's shared part is
// kept with it and returned wherever the value is, in gets, lists,
// watch events and the history.
func (s *Store) KeepsShared() bool { return true }

// OptimisticDelete implements [storage.Interface]. A missing key never
// matches, whatever expectedRevision is.
func (s *Store) OptimisticDelete(ctx context.Context, key string, expectedRevision int64, _ storage.DeleteOptions) (storage.DeleteResponse, error) {
	if err := s.check(ctx); err != nil {
		return storage.DeleteResponse{}, err
	}
	s.mu.Lock()
	st := s.cur.Load()
	prev, _ := tree.Get(st.root, key)
	if prev == nil || prev.ModRevision != expectedRevision {
		s.mu.Unlock()
		return storage.DeleteResponse{KV: prev, Revision: st.rev}, nil
	}
	rev := st.rev + 1
	root, _, _ := tree.Delete(st.root, key, uint64(rev))
	tomb := &storage.KeyValue{Key: key, ModRevision: rev}
	s.mark(key, rev)
	s.publish(st, root, storage.Event{Type: storage.EventDelete, KV: tomb, PrevKV: prev})
	s.mu.Unlock()
	s.wakeFor(key)
	return storage.DeleteResponse{Succeeded: true, KV: prev, Revision: rev}, nil
}

func matches(kv *storage.KeyValue, expectedRevision int64) bool {
	if kv == nil {
		return expectedRevision == 0
	}
	return kv.ModRevision == expectedRevision
}

// publish installs the state after st that has root and records ev as its
// revision's event, trimming history beyond the window. s.mu must be held.
func (s *Store) publish(st *state, root *node, ev storage.Event) {
	next := &state{rev: st.rev + 1, compacted: st.compacted, root: root, histBytes: st.histBytes + pastBytes(&ev), staleBytes: st.staleBytes}
	next.hist = st.hist.appended(next.rev, ev)
	floor := max(next.compacted, next.rev-int64(s.opts.HistoryWindow))
	next.dropThrough(floor)
	// Over the byte bound, compact revision by revision; the newest
	// revision's event stays for watchers that are one write behind.
	for next.histBytes > s.opts.HistoryBytes && next.compacted < next.rev-1 {
		next.dropThrough(next.compacted + 1)
	}
	if next.compacted > st.compacted {
		next.hist = next.hist.trimmed(next.compacted)
		next.releaseStale(s.opts.HistoryBytes)
	}
	s.cur.Store(next)
}

// releaseStale clears the events of compacted revisions still held in the
// log's first chunk once their values exceed an eighth of the history's
// byte bound, so that the memory the history keeps is bounded by bytes
// and not only by its accounting: without it, values of up to a chunk's
// worth of compacted revisions stayed reachable. Small values, bounded by
// the window, rarely reach it; large ones are released as they go.
func (st *state) releaseStale(bound int64) {
	if st.staleBytes <= bound/8 {
		return
	}
	st.hist = st.hist.released(st.compacted)
	st.staleBytes = 0
}

// pastBytes is what an event adds to the history's past values: the value
// it replaced or deleted.
func pastBytes(ev *storage.Event) int64 {
	if ev.PrevKV == nil {
		return 0
	}
	return int64(len(ev.PrevKV.Value))
}

// dropThrough compacts st through revision rev, accounting for the past
// values it no longer keeps. The caller trims the log.
func (st *state) dropThrough(rev int64) {
	for r := max(st.compacted+1, initialRevision+1); r <= rev; r++ {
		b := pastBytes(st.hist.at(r))
		st.histBytes -= b
		st.staleBytes += b
	}
	if rev > st.compacted {
		st.compacted = rev
	}
}

// Compact implements [storage.Interface]. Compacting at or below the
// already compacted revision does nothing; above the current revision it
// fails with ErrFutureRevision.
func (s *Store) Compact(ctx context.Context, revision int64) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.cur.Load()
	if revision > st.rev {
		return &storage.Error{Code: storage.ErrFutureRevision, Revision: st.rev}
	}
	if revision <= st.compacted {
		return nil
	}
	next := &state{rev: st.rev, compacted: st.compacted, root: st.root, hist: st.hist, histBytes: st.histBytes, staleBytes: st.staleBytes}
	next.dropThrough(revision)
	next.hist = next.hist.trimmed(revision)
	next.releaseStale(s.opts.HistoryBytes)
	s.cur.Store(next)
	return nil
}
