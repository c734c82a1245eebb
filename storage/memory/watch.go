package memory

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/kapi-dev/kapi/storage"
)

// maxBatch caps the events of one watch response, which bounds what a
// watcher pins while its consumer is slow.
const maxBatch = 256

// broadcast wakes every goroutine waiting for the next write. A waiter
// takes the channel before it looks at the store; the next signal closes
// that channel, so no write goes unnoticed.
type broadcast struct {
	ch atomic.Pointer[chan struct{}]
}

// wait returns a channel closed by the next signal.
func (b *broadcast) wait() <-chan struct{} {
	for {
		if p := b.ch.Load(); p != nil {
			return *p
		}
		c := make(chan struct{})
		if b.ch.CompareAndSwap(nil, &c) {
			return c
		}
	}
}

// signal wakes the current waiters.
func (b *broadcast) signal() {
	if p := b.ch.Swap(nil); p != nil {
		close(*p)
	}
}

// watcher is one watch: a goroutine that reads the shared event log from
// its own cursor and sends what matches its prefix to its channel.
//
// Only writes under its prefix wake it: a write records its revision in
// the lastMatch of every watcher whose prefix holds the key, before the
// write is published, and then signals their wake. A watcher that finds
// lastMatch at or below its cursor knows that no revision up to the
// published one is its business, and moves its cursor there without
// reading the log. So a write costs the store's other watches nothing,
// and an idle watch is never failed for a compaction that took none of
// its events.
type watcher struct {
	s         *Store
	ctx       context.Context
	kr        keyRange
	from      int64 // every revision up to from has been handled
	progress  bool
	ch        chan storage.WatchResponse
	lastMatch atomic.Int64 // the newest revision that wrote under kr
	// firstPending is at or before the oldest revision under kr that
	// from had not passed when it was marked: what a watch that fell
	// behind a compaction may still deliver whole from.
	firstPending atomic.Int64
	passed       atomic.Int64 // from, for writers
	wake         broadcast
	asked        uint64 // the store's progress requests w has answered
}

// Watch implements [storage.Interface].
//
// Writers never wait for watchers: each watch has its own goroutine that
// reads the shared event log at its own pace and blocks only on its own
// channel. A watch whose consumer falls so far behind that the events it
// still has to deliver leave the history window receives a last response
// with an ErrCompacted [storage.Error] and its channel is closed; the
// consumer must list and watch again. Events and their KeyValues are
// shared: callers must not modify them.
//
// A watch with ProgressNotify receives an empty response carrying its
// revision when it had no events for a ProgressInterval, and soon after
// every [Store.RequestProgress].
//
// A Revision in the future is allowed: events are delivered once the
// store passes it.
func (s *Store) Watch(ctx context.Context, prefix string, opts storage.WatchOptions) <-chan storage.WatchResponse {
	ch := make(chan storage.WatchResponse, s.opts.WatchBuffer)
	fail := func(err error) <-chan storage.WatchResponse {
		ch <- storage.WatchResponse{Err: err}
		close(ch)
		return ch
	}
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed.Load() {
		return fail(&storage.Error{Code: storage.ErrUnavailable, Err: errClosed})
	}
	w := &watcher{s: s, ctx: ctx, kr: newKeyRange(prefix, ""), from: opts.Revision, progress: opts.ProgressNotify, ch: ch}
	// Registered under the write lock: every write after st sees w.
	s.mu.Lock()
	st := s.cur.Load()
	switch {
	case opts.Revision < 0:
		s.mu.Unlock()
		return fail(errors.New("memory: negative watch revision"))
	case opts.Revision == 0:
		w.from = st.rev
	case opts.Revision < st.compacted:
		s.mu.Unlock()
		return fail(&storage.Error{Code: storage.ErrCompacted, Revision: st.compacted})
	case opts.Revision < st.rev:
		// The revisions already written were not marked for w: it reads
		// them from the log.
		w.lastMatch.Store(st.rev)
		w.firstPending.Store(opts.Revision + 1)
	}
	w.passed.Store(w.from)
	w.asked = s.progressAsked.Load()
	s.register(w)
	s.mu.Unlock()
	s.watchers.Add(1)
	go w.run()
	return ch
}

// register adds w to the watchers writes mark; s.mu must be held.
func (s *Store) register(w *watcher) {
	old := s.watching.Load()
	var ws []*watcher
	if old != nil {
		ws = make([]*watcher, 0, len(*old)+1)
		ws = append(ws, *old...)
	}
	ws = append(ws, w)
	s.watching.Store(&ws)
}

// unregister removes w from the watchers writes mark.
func (s *Store) unregister(w *watcher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := *s.watching.Load()
	ws := make([]*watcher, 0, len(old))
	for _, o := range old {
		if o != w {
			ws = append(ws, o)
		}
	}
	s.watching.Store(&ws)
}

// mark records that revision rev writes key, in every watcher whose prefix
// holds it. It is called with s.mu held, before rev is published.
func (s *Store) mark(key string, rev int64) {
	if ws := s.watching.Load(); ws != nil {
		for _, w := range *ws {
			if w.kr.contains(key) {
				if w.lastMatch.Load() <= w.passed.Load() { // none pending
					w.firstPending.Store(rev)
				}
				w.lastMatch.Store(rev)
			}
		}
	}
}

// wakeFor wakes the watchers whose prefix holds key, once the write is
// published.
func (s *Store) wakeFor(key string) {
	if ws := s.watching.Load(); ws != nil {
		for _, w := range *ws {
			if w.kr.contains(key) {
				w.wake.signal()
			}
		}
	}
}

// RequestProgress implements [storage.ProgressRequester]: every watch
// with ProgressNotify soon sends a response with the store's revision
// (or its events up to it).
func (s *Store) RequestProgress(ctx context.Context) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	s.progressAsked.Add(1)
	s.progress.signal()
	return nil
}

func (w *watcher) run() {
	defer w.s.watchers.Done()
	defer w.s.unregister(w)
	defer close(w.ch)
	var tick <-chan time.Time
	if w.progress {
		t := time.NewTicker(w.s.opts.ProgressInterval)
		defer t.Stop()
		tick = t.C
	}
	active := false // whether events were sent since the last tick
	report := false // whether a progress response is due
	for {
		resp, more := w.next()
		if resp.Err != nil {
			w.send(resp)
			return
		}
		if len(resp.Events) > 0 {
			if !w.send(resp) {
				return
			}
			active = true
		} else if resp.Revision > 0 && w.progress {
			// The log was read (a watch from a past revision) and held
			// nothing under the prefix: say how far the watch got.
			report = true
		}
		if more {
			continue
		}
		if report {
			if !w.send(storage.WatchResponse{Revision: w.from}) {
				return
			}
			report, active = false, true
		}
		// Take the wake-up channels before the last look at the store.
		wake := w.wake.wait()
		var asked <-chan struct{}
		if w.progress {
			asked = w.s.progress.wait()
			// Requests made while w was not waiting count too.
			if n := w.s.progressAsked.Load(); n != w.asked {
				w.asked, report = n, true
				continue
			}
		}
		if w.pending() {
			continue
		}
		select {
		case <-wake:
		case <-asked:
		case <-tick:
			if !active {
				report = true
			}
			active = false
		case <-w.ctx.Done():
			return
		case <-w.s.done:
			w.closing()
			return
		}
	}
}

// pending reports whether a published revision past w.from wrote under
// w's prefix.
func (w *watcher) pending() bool {
	return w.lastMatch.Load() > w.from && w.s.cur.Load().rev > w.from
}

// next collects the events after w.from, at most maxBatch of them, and
// advances w.from past what it scanned. It reports whether the log holds
// more to scan. It returns an Err response when the events are gone.
// When no published revision after w.from wrote under w's prefix, it
// moves w.from to the store's revision without reading the log.
func (w *watcher) next() (storage.WatchResponse, bool) {
	st := w.s.cur.Load()
	if st.rev <= w.from {
		return storage.WatchResponse{}, false
	}
	// Loaded after st: a write at or below st.rev marked before it
	// was published, so it shows here.
	if w.lastMatch.Load() <= w.from {
		w.pass(st.rev)
		return storage.WatchResponse{}, false
	}
	if st.compacted > w.from {
		// Not woken by the writes elsewhere, the watch may lag behind
		// a compaction that took none of its events.
		fp := w.firstPending.Load()
		if fp <= st.compacted {
			return storage.WatchResponse{Err: &storage.Error{Code: storage.ErrCompacted, Revision: st.compacted}}, false
		}
		w.pass(fp - 1)
	}
	var evs []storage.Event
	r := w.from + 1
	for ; r <= st.rev && len(evs) < maxBatch; r++ {
		if ev := st.hist.at(r); w.kr.contains(ev.KV.Key) {
			evs = append(evs, *ev)
		}
	}
	w.pass(r - 1)
	return storage.WatchResponse{Events: evs, Revision: w.from}, w.from < st.rev
}

// pass moves w.from to rev.
func (w *watcher) pass(rev int64) {
	w.from = rev
	w.passed.Store(rev)
}

// send delivers resp unless the watch ends first, and reports whether it
// did.
func (w *watcher) send(resp storage.WatchResponse) bool {
	select {
	case w.ch <- resp:
		return true
	case <-w.ctx.Done():
		return false
	case <-w.s.done:
		w.closing()
		return false
	}
}

// closing tells the consumer, if its channel has room, that the store was
// closed.
func (w *watcher) closing() {
	if w.ctx.Err() != nil {
		return
	}
	select {
	case w.ch <- storage.WatchResponse{Err: &storage.Error{Code: storage.ErrUnavailable, Err: errClosed}}:
	default:
	}
}
