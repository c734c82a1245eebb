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
type watcher struct {
	s        *Store
	ctx      context.Context
	kr       keyRange
	from     int64 // every revision up to from has been handled
	progress bool
	ch       chan storage.WatchResponse
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
	st := s.cur.Load()
	w := &watcher{s: s, ctx: ctx, kr: newKeyRange(prefix, ""), from: opts.Revision, progress: opts.ProgressNotify, ch: ch}
	switch {
	case opts.Revision < 0:
		return fail(errors.New("memory: negative watch revision"))
	case opts.Revision == 0:
		w.from = st.rev
	case opts.Revision < st.compacted:
		return fail(&storage.Error{Code: storage.ErrCompacted, Revision: st.compacted})
	}
	s.watchers.Add(1)
	go w.run()
	return ch
}

func (w *watcher) run() {
	defer w.s.watchers.Done()
	defer close(w.ch)
	var tick <-chan time.Time
	if w.progress {
		t := time.NewTicker(w.s.opts.ProgressInterval)
		defer t.Stop()
		tick = t.C
	}
	active := false // whether events were sent since the last tick
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
		} else if w.progress && resp.Revision > 0 && !more {
			// Only other prefixes changed: say how far this watch has
			// got, so a consistent read waiting on it need not wait for
			// the next tick.
			if !w.send(storage.WatchResponse{Revision: w.from}) {
				return
			}
			active = true
		}
		if more {
			continue
		}
		// Take the wake-up channel before the last look at the store.
		wake := w.s.notify.wait()
		if w.s.cur.Load().rev > w.from {
			continue
		}
		select {
		case <-wake:
		case <-tick:
			if !active && !w.send(storage.WatchResponse{Revision: w.from}) {
				return
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

// next collects the events after w.from, at most maxBatch of them, and
// advances w.from past what it scanned. It reports whether the log holds
// more to scan. It returns an Err response when the events are gone.
func (w *watcher) next() (storage.WatchResponse, bool) {
	st := w.s.cur.Load()
	if st.rev <= w.from {
		return storage.WatchResponse{}, false
	}
	if st.compacted > w.from {
		return storage.WatchResponse{Err: &storage.Error{Code: storage.ErrCompacted, Revision: st.compacted}}, false
	}
	var evs []storage.Event
	r := w.from + 1
	for ; r <= st.rev && len(evs) < maxBatch; r++ {
		if ev := st.hist.at(r); w.kr.contains(ev.KV.Key) {
			evs = append(evs, *ev)
		}
	}
	w.from = r - 1
	return storage.WatchResponse{Events: evs, Revision: w.from}, w.from < st.rev
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
