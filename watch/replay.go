package watch

import (
	"context"
	"strings"

	"github.com/kapi-dev/kapi/storage"
)

// A watch from a revision older than the event window, but newer than the
// store's compaction, is served from the store's history first: the
// watcher opens its own store watch from that revision and delivers its
// changes (filtered exactly as window records are) until it has delivered
// every change up to a revision the cache's window covers. It then closes
// the store watch and reads the shared window from the record after that
// revision, as any other watcher does, so no change is missed or delivered
// twice. A restarted server, whose window starts at its first list, thus
// resumes its clients' watches instead of making every one of them list
// again.

// checkHistory returns the 410 Expired of a watch from rev when the store
// has compacted the changes after rev, and nil when it still holds them.
// It reads at most one key, at rev+1 (at most the store's revision: rev
// is behind the cache).
func (c *Cache) checkHistory(ctx context.Context, rev, oldest int64) error {
	_, err := c.store.List(ctx, c.prefix, storage.ListOptions{Revision: rev + 1, Limit: 1})
	switch {
	case err == nil:
		return nil
	case storage.IsCompacted(err):
		return expired(rev, oldest)
	}
	return err
}

// replay delivers the store's changes after w.pos until the cache's window
// covers w.pos, then positions the watcher in the window.
func (w *Watcher) replay() error {
	ctx, cancel := context.WithCancel(w.ctx)
	defer cancel()
	prefix := w.lo
	if !strings.HasSuffix(prefix, "/") { // one key: watch the cache's prefix
		prefix = w.c.prefix
	}
	ch := w.c.store.Watch(ctx, prefix, storage.WatchOptions{Revision: w.pos, ProgressNotify: true})
	for {
		st := w.c.cur.Load()
		if st.stopped {
			return ErrStopped
		}
		recv := ch
		if st.ready && w.pos >= st.base.rev {
			if w.pos <= st.rev {
				w.replaying = false
				w.epoch, w.seq, w.bookmarks = st.epoch, st.log.search(w.pos), st.bookmarks
				return nil
			}
			recv = nil // ahead of the cache: wait for it to catch up
		}
		select {
		case resp, ok := <-recv:
			if err := w.replayed(resp, ok, st); err != nil {
				return err
			}
		case <-st.changed:
		case <-w.ctx.Done():
			return w.ended()
		}
	}
}

// replayed delivers one response of the store watch. A store watch that
// fails or ends ends the watcher with 410 Expired: its consumer lists again.
func (w *Watcher) replayed(resp storage.WatchResponse, ok bool, st *state) error {
	if !ok || resp.Err != nil {
		if w.ctx.Err() != nil {
			return w.ended()
		}
		return expired(w.pos, st.base.rev)
	}
	for i := range resp.Events {
		rec := w.c.storeRecord(&resp.Events[i])
		if rec == nil || rec.rev <= w.pos {
			continue
		}
		if ev, ok := w.convert(rec, w.c.storeFrames); ok {
			if err := w.send(ev); err != nil {
				return err
			}
		}
		w.pos = rec.rev
	}
	w.pos = max(w.pos, resp.Revision)
	return nil
}

// storeRecord makes the record of one store event for a replaying
// watcher; nil for a delete of a key whose value the store did not give.
func (c *Cache) storeRecord(ev *storage.Event) *record {
	rec := &record{rev: ev.KV.ModRevision}
	if ev.PrevKV != nil {
		rec.prev = c.entry(ev.PrevKV)
	}
	switch {
	case ev.Type == storage.EventPut:
		rec.entry = c.entry(ev.KV)
	case rec.prev == nil:
		return nil
	default:
		rec.tomb.Store(rec.prev.stamped(rec.rev))
	}
	return rec
}
