package watch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kapi-dev/kapi/resourceversion"
)

// EventType is the kind of an [Event].
type EventType uint8

// The event types. Their String is the watch event type on the wire.
const (
	// Added: the object was created, or it started to pass the watcher's
	// filter, or it is part of the initial state.
	Added EventType = iota + 1
	// Modified: the object changed and passes the filter before and after.
	Modified
	// Deleted: the object was deleted, or it stopped passing the filter.
	Deleted
	// Bookmark: no object; every change up to Revision has been delivered.
	Bookmark
)

var eventTypeNames = [...]string{Added: "ADDED", Modified: "MODIFIED", Deleted: "DELETED", Bookmark: "BOOKMARK"}

// String returns the wire name: ADDED, MODIFIED, DELETED or BOOKMARK.
func (t EventType) String() string {
	if int(t) < len(eventTypeNames) && eventTypeNames[t] != "" {
		return eventTypeNames[t]
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Event is one thing a [Watcher] delivers.
type Event struct {
	Type EventType
	// InitialEventsEnd marks the Bookmark that ends the initial events
	// (the one a server annotates k8s.io/initial-events-end).
	InitialEventsEnd bool
	// Entry is the object to send. For Added and Modified it is the new
	// state; for Deleted it is the last state before the change, with
	// KV.ModRevision set to Revision (the object's resourceVersion in a
	// DELETED event is the revision of the deletion, as in
	// kube-apiserver). Nil for a Bookmark.
	Entry *Entry
	// Prev is the state before the change (with its own ModRevision) when
	// there was one, whether or not it passed the filter; nil for a
	// creation, an initial event or a Bookmark.
	Prev *Entry
	// Revision is the revision of the change; for an initial event the
	// object's own ModRevision; for a Bookmark the revision up to which
	// every change has been delivered.
	Revision int64

	rec *record      // the change, whose encodings [Event.Encoded] shares
	src *frameSource // where the change's encodings are counted
}

// WatchOptions tunes [Cache.Watch] and [Cache.WatchWithInitialState].
type WatchOptions struct {
	// Filter, when set, is the watcher's selector. It is applied to the
	// states before and after each change: a change that makes an object
	// pass it is delivered as Added, one that makes it fail it as Deleted
	// (of the previous state), and changes of objects that fail it before
	// and after are not delivered. It runs on the watcher's goroutine and
	// must be safe for concurrent use with other watchers' filters.
	Filter func(*Entry) bool
	// Bookmarks asks for Bookmark events (allowWatchBookmarks): about
	// every [Options.BookmarkInterval], and when the store reports
	// progress with nothing new for the watcher (at most once a second).
	Bookmarks bool
	// InitialEventsEnd asks WatchWithInitialState for a Bookmark with
	// InitialEventsEnd set right after the initial events, carrying the
	// revision of the initial state.
	InitialEventsEnd bool
	// Sink, when set, takes the events on the watcher's own goroutine
	// instead of its channel, which then carries nothing and only closes
	// when the watch ends. A server that writes events to a connection
	// saves a hand-off between goroutines per batch. The stall rule does
	// not apply to a Sink: one that blocks holds its watcher only, and
	// must bound how long itself.
	Sink Sink
	// Spacing is the least time between two deliveries: a watcher woken
	// by a change sooner than Spacing after its last delivery holds it
	// until then, and delivers every change that came meanwhile together
	// (a change after a quiet spell goes out at once). The cache's own
	// lingering, with many watchers, applies when it is longer.
	Spacing time.Duration
}

// Sink takes a watcher's events in place of its channel (see
// [WatchOptions.Sink]).
type Sink interface {
	// Send takes the next event. It may write it on at once or hold it;
	// an error ends the watch, and [Watcher.Err] returns it.
	Send(Event) error
	// Flush is called when the watcher has sent every change it has and
	// is about to wait for more: what Send held goes out now.
	Flush() error
}

// Watcher delivers the changes of one watch in revision order on its
// channel. The channel is closed when the watch ends; [Watcher.Err] then
// says why.
type Watcher struct {
	c      *Cache
	ch     chan Event
	lo, hi string
	opts   WatchOptions
	rev    int64
	ctx    context.Context // ends with the consumer's or the cache's
	cancel context.CancelFunc
	// stopFollowing unhooks ctx from the cache's context.
	stopFollowing func() bool
	wake          chan struct{}
	bmReq         atomic.Int64 // revision a requested bookmark must reach; 0: none

	mu  sync.Mutex
	err error

	// owned by the watcher's goroutine
	epoch     int64
	seq       int64       // the next record to look at
	pos       int64       // every change up to pos has been delivered
	bookmarks int64       // the bookmark round last seen
	initial   *node       // the initial state to send first, if any
	replaying bool        // serving from the store's history (see replay)
	timer     *time.Timer // for holding; nil until it first holds
}

// errDone ends a watcher its consumer stopped.
var errDone = errors.New("watch: watcher stopped")

// Events returns the channel of events. It is closed when the watch ends
// (after Stop, when the context given at creation is done, or on a
// terminal error; see [Watcher.Err]).
func (w *Watcher) Events() <-chan Event { return w.ch }

// Stop ends the watch; its channel is closed soon after. Stop may be
// called more than once and from any goroutine.
func (w *Watcher) Stop() { w.cancel() }

// Err returns why the channel was closed: nil when the consumer ended the
// watch (Stop or its context); [ErrTooSlow]; [ErrStopped]; or a 410
// Expired *status.Error when the cache had to list its store again and the
// consumer must list again too. It returns nil while the channel is open.
func (w *Watcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Revision returns the revision the watch started from: the initial
// state's for WatchWithInitialState (events after it follow the initial
// ones), else the revision after which changes are delivered.
func (w *Watcher) Revision() int64 { return w.rev }

// RequestBookmark asks for a Bookmark, whether or not the watch allows
// bookmarks, at a revision at least the cache's revision at the time of
// the call: it is sent as soon as the watcher has delivered every change
// up to that revision. Requests made before that bookmark is sent are
// merged.
func (w *Watcher) RequestBookmark() {
	rev := max(w.c.cur.Load().rev, 1)
	for {
		old := w.bmReq.Load()
		if old >= rev || w.bmReq.CompareAndSwap(old, rev) {
			break
		}
	}
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Watch delivers every change under prefix (or to the one key, when
// prefix does not end in "/") with a revision greater than fromRevision, in
// order. fromRevision 0 means the cache's current revision. When
// fromRevision is ahead of the cache, Watch waits for the cache to reach
// it, up to [Options.FreshnessTimeout] (then it fails with the 504 of
// resourceversion.TooLargeResourceVersion). When changes after
// fromRevision have left the event window, they are served from the
// store's history until the window covers the watch (see replay.go); only
// when the store has compacted fromRevision too does Watch fail with 410
// Expired "too old resource version: N (oldest)". The watch ends when ctx
// is done.
func (c *Cache) Watch(ctx context.Context, prefix string, fromRevision int64, opts WatchOptions) (*Watcher, error) {
	if fromRevision < 0 {
		return nil, fmt.Errorf("watch: negative revision %d", fromRevision)
	}
	st, err := c.waitFor(ctx, fromRevision)
	if err != nil {
		return nil, err
	}
	if fromRevision == 0 {
		fromRevision = st.rev
	}
	if fromRevision >= st.base.rev {
		return c.startWatcher(ctx, prefix, opts, st, fromRevision, st.log.search(fromRevision), nil)
	}
	if err := c.checkHistory(ctx, fromRevision, st.base.rev); err != nil {
		return nil, err
	}
	return c.startWatcher(ctx, prefix, opts, st, fromRevision, -1, nil)
}

// WatchWithInitialState delivers an Added event for every object under
// prefix that passes the filter in the state at a revision R chosen as a
// list with read's semantics would be (MostRecent: consistent, at or after
// the store's current revision; Any: the cache's current; NotOlderThan N:
// at or after N), then, if asked, a Bookmark with InitialEventsEnd at R,
// then every change after R, as Watch(R) would: no change is missed or
// delivered twice. [Watcher.Revision] returns R. Initial events come in
// key order.
func (c *Cache) WatchWithInitialState(ctx context.Context, prefix string, read resourceversion.List, opts WatchOptions) (*Watcher, error) {
	switch read.Semantics {
	case resourceversion.MostRecent, resourceversion.Any, resourceversion.NotOlderThan:
	default:
		return nil, fmt.Errorf("watch: initial state cannot be read with semantics %v", read.Semantics)
	}
	st, err := c.fresh(ctx, read.Semantics, read.Revision)
	if err != nil {
		return nil, err
	}
	return c.startWatcher(ctx, prefix, opts, st, st.rev, st.log.end, st.root)
}

// startWatcher registers a watcher positioned at record seq of st's epoch
// (a seq of -1: replaying the store's history from rev) and starts its
// goroutine.
func (c *Cache) startWatcher(ctx context.Context, prefix string, opts WatchOptions, st *state, rev, seq int64, initial *node) (*Watcher, error) {
	if err := c.covers(prefix); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil, ErrStopped
	}
	buffer := c.opts.WatcherBuffer
	if opts.Sink != nil {
		buffer = 0 // the channel only closes
	}
	w := &Watcher{
		c:         c,
		ch:        make(chan Event, buffer),
		opts:      opts,
		rev:       rev,
		wake:      make(chan struct{}, 1),
		epoch:     st.epoch,
		seq:       seq,
		pos:       rev,
		bookmarks: st.bookmarks,
		initial:   initial,
		replaying: seq < 0,
	}
	w.lo, w.hi = keyRange(prefix)
	// The watcher's context ends with the cache's too, so that its waits
	// watch one channel for both: the cache's is shared by every watcher,
	// and a select that takes a shared channel's lock on every wait was
	// contended at a thousand watchers.
	w.ctx, w.cancel = context.WithCancel(ctx)
	w.stopFollowing = context.AfterFunc(c.ctx, w.cancel)
	c.watchers.Add(1)
	c.active.Add(1)
	go w.run()
	return w, nil
}

func (w *Watcher) run() {
	defer w.c.watchers.Done()
	err := w.loop()
	w.c.active.Add(-1)
	w.stopFollowing()
	w.cancel()
	switch {
	case errors.Is(err, errDone):
		err = nil
	case errors.Is(err, ErrTooSlow):
		w.c.opts.Counters.addSlow()
	}
	w.mu.Lock()
	w.err = err
	w.mu.Unlock()
	close(w.ch)
}

// loop sends the initial state, if any, then follows the window. It never
// keeps a state across a blocking send, so a stuck consumer pins nothing
// but the event it is sending.
func (w *Watcher) loop() error {
	if w.initial != nil {
		if err := w.sendInitial(); err != nil {
			return err
		}
	}
	if w.replaying {
		if err := w.replay(); err != nil {
			return err
		}
	}
	sent := false // changes were sent since the watcher last held
	for {
		st := w.c.cur.Load()
		if err := w.check(st); err != nil {
			return err
		}
		if w.seq < st.log.end {
			rec := st.log.at(w.seq)
			w.seq++
			if ev, ok := w.convert(rec, w.c.windowFrames); ok {
				if err := w.send(ev); err != nil {
					return err
				}
				sent = true
			}
			w.pos = rec.rev
			continue
		}
		w.pos = st.rev
		if err := w.bookmark(st); err != nil {
			return err
		}
		if s := w.opts.Sink; s != nil {
			if err := s.Flush(); err != nil {
				return err
			}
		}
		if sent {
			sent = false
			if err := w.hold(); err != nil {
				return err
			}
			continue // look again: changes may have come while it held
		}
		select {
		case <-st.changed:
		case <-w.wake:
		case <-w.ctx.Done():
			return w.ended()
		}
	}
}

// ended is the error of a watcher whose context is done: ErrStopped when
// the cache stopped, errDone when its consumer did.
func (w *Watcher) ended() error {
	if w.c.ctx.Err() != nil {
		return ErrStopped
	}
	return errDone
}

// check returns the error that ends the watcher in state st, if any.
func (w *Watcher) check(st *state) error {
	switch {
	case st.stopped:
		return ErrStopped
	case w.replaying: // not reading the window yet
		return nil
	case st.epoch != w.epoch:
		return expired(w.pos, st.base.rev)
	case w.seq < st.log.first:
		return ErrTooSlow
	}
	return nil
}

// sendInitial sends the initial state, then its end bookmark if asked.
func (w *Watcher) sendInitial() error {
	var err error
	tree.Ascend(w.initial, w.lo, false, func(e *Entry) bool {
		if w.hi != "" && e.KV.Key >= w.hi {
			return false
		}
		if w.opts.Filter != nil && !w.opts.Filter(e) {
			return true
		}
		if err = w.check(w.c.cur.Load()); err == nil {
			err = w.send(Event{Type: Added, Entry: e, Revision: e.KV.ModRevision})
		}
		return err == nil
	})
	w.initial = nil
	if err == nil && w.opts.InitialEventsEnd {
		err = w.send(Event{Type: Bookmark, InitialEventsEnd: true, Revision: w.rev})
	}
	return err
}

// bookmark sends a Bookmark at st's revision when a round started since
// the last one (and the watch allows them) or a request st satisfies is
// pending.
func (w *Watcher) bookmark(st *state) error {
	round := w.opts.Bookmarks && st.bookmarks != w.bookmarks
	w.bookmarks = st.bookmarks
	req := w.bmReq.Load()
	requested := req > 0 && st.rev >= req && w.bmReq.CompareAndSwap(req, 0)
	if !round && !requested {
		return nil
	}
	return w.send(Event{Type: Bookmark, Revision: st.rev})
}

// convert returns the event a record is for this watcher, if any; src
// is where the record's encodings are counted.
func (w *Watcher) convert(r *record, src *frameSource) (Event, bool) {
	if key := r.key(); key < w.lo || w.hi != "" && key >= w.hi {
		return Event{}, false
	}
	cur := r.entry != nil && w.match(r.entry)
	prev := r.prev != nil && w.match(r.prev)
	switch {
	case cur && prev:
		return Event{Type: Modified, Entry: r.entry, Prev: r.prev, Revision: r.rev, rec: r, src: src}, true
	case cur:
		return Event{Type: Added, Entry: r.entry, Prev: r.prev, Revision: r.rev, rec: r, src: src}, true
	case prev:
		return Event{Type: Deleted, Entry: r.tombstone(), Prev: r.prev, Revision: r.rev, rec: r, src: src}, true
	}
	return Event{}, false
}

func (w *Watcher) match(e *Entry) bool { return w.opts.Filter == nil || w.opts.Filter(e) }

// send delivers ev, blocking while the channel is full, unless the watch
// ends first: because the consumer stalled (took nothing for
// StallTimeout), or for a reason check finds while it waits. A Sink takes
// ev on this goroutine.
func (w *Watcher) send(ev Event) error {
	if s := w.opts.Sink; s != nil {
		select {
		case <-w.ctx.Done():
			return w.ended()
		default:
			return s.Send(ev)
		}
	}
	select { // the common case, much cheaper than the select below
	case w.ch <- ev:
		return nil
	default:
	}
	since := w.c.opts.Clock.Now()
	for {
		beat := w.c.beat.Load()
		select {
		case w.ch <- ev:
			return nil
		case <-*beat:
			if w.c.opts.Clock.Now().Sub(since) >= w.c.opts.StallTimeout {
				return ErrTooSlow
			}
			if err := w.check(w.c.cur.Load()); err != nil {
				return err
			}
		case <-w.ctx.Done():
			return w.ended()
		}
	}
}
