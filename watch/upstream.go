package watch

import (
	"context"
	"errors"
	"runtime"
	"time"

	"github.com/kapi-dev/kapi/storage"
)

const (
	// listPageSize is the page size of the cache's own lists.
	listPageSize = 10000
	// housekeepingInterval is how often the window is trimmed by age,
	// snapshots are expired and blocked watchers check for stalls.
	housekeepingInterval = time.Second
	// progressBookmarkSpacing is the least time between two bookmark
	// rounds caused by progress notifications.
	progressBookmarkSpacing = time.Second
	// Retry back-off after a failed list or watch.
	minBackoff = 10 * time.Millisecond
	maxBackoff = time.Second
)

// errWatchEnded: the upstream watch channel closed without an error.
var errWatchEnded = errors.New("watch: upstream watch ended")

// upstream is the state of the goroutine that feeds the cache.
type upstream struct {
	received     int64 // upstream responses received
	lastProgress int64 // when progress last caused a bookmark round
	bookmarkTick <-chan time.Time
	houseTick    <-chan time.Time
	backoff      time.Duration
	// framed is the sequence number of the oldest window record whose
	// encoded events may still be kept (see releaseFrames).
	framed int64
	batch  []storage.WatchResponse // reused by watch
}

// run lists the prefix and follows its watch until Stop, listing again
// whenever the watch cannot resume where the cache is.
func (c *Cache) run() {
	defer close(c.finished)
	bt := c.opts.Clock.NewTicker(c.opts.BookmarkInterval)
	defer bt.Stop()
	ht := c.opts.Clock.NewTicker(housekeepingInterval)
	defer ht.Stop()
	c.up.bookmarkTick, c.up.houseTick = bt.C(), ht.C()
	for c.ctx.Err() == nil {
		if err := c.list(); err != nil {
			c.sleep()
			continue
		}
		received := c.up.received
		c.follow()
		if c.up.received == received { // the watch failed at once: wait
			c.sleep()
		}
	}
	next := *c.cur.Load()
	next.stopped = true
	c.publish(&next)
}

// follow watches from the cache's revision, again after every failure,
// until the revision is compacted (a list is due) or the cache stops.
// Since a watch resumes right after the last applied revision, watchers
// see no gap.
func (c *Cache) follow() {
	for c.ctx.Err() == nil {
		err := c.watch()
		if storage.IsCompacted(err) || c.ctx.Err() != nil {
			return
		}
		c.sleep()
	}
}

// sleep waits the back-off, which doubles up to maxBackoff.
func (c *Cache) sleep() {
	c.up.backoff = min(max(2*c.up.backoff, minBackoff), maxBackoff)
	t := time.NewTimer(c.up.backoff)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.ctx.Done():
	}
}

// list reads the whole prefix at one revision and installs it as a new
// epoch: the window restarts at that revision and watchers of the old
// epoch end with 410 Expired. Entries whose object did not change are
// kept, with their decoded object and encodings. A list at the cache's own
// revision changes nothing: the cache already has that state.
func (c *Cache) list() error {
	old := c.cur.Load()
	gen := c.nextGen()
	root := new(node) // built in place with gen, non-nil even if empty
	var idx *pnode
	if c.opts.Index != nil {
		idx = new(pnode)
	}
	opts := storage.ListOptions{Limit: listPageSize}
	for {
		resp, err := c.store.List(c.ctx, c.prefix, opts)
		if err != nil {
			return err
		}
		opts.Revision = resp.Revision
		for _, kv := range resp.KVs {
			e, _ := tree.Get(old.root, kv.Key)
			if e == nil || e.KV.ModRevision != kv.ModRevision || e.KV.CreateRevision != kv.CreateRevision {
				e = c.entry(kv)
			}
			root, _, _ = tree.Put(root, e, gen)
			if idx != nil {
				idx = reindex(idx, kv.Key, nil, c.terms(kv), gen)
			}
		}
		if resp.Remaining == 0 || len(resp.KVs) == 0 {
			break
		}
		opts.After = resp.KVs[len(resp.KVs)-1].Key
	}
	if old.ready && opts.Revision == old.rev {
		return nil
	}
	c.releaseFrames(old, old.log.end, 0)
	c.up.framed = 0
	c.publish(&state{
		rev:       opts.Revision,
		root:      root,
		index:     idx,
		base:      &record{rev: opts.Revision, at: c.now()},
		epoch:     old.epoch + 1,
		bookmarks: old.bookmarks,
		ready:     true,
		changes:   old.changes + 1,
	})
	return nil
}

// watch follows one upstream watch until it fails or the cache stops.
func (c *Cache) watch() error {
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	ch := c.store.Watch(ctx, c.prefix, storage.WatchOptions{Revision: c.cur.Load().rev, ProgressNotify: true})
	for {
		select {
		case resp, ok := <-ch:
			if !ok {
				return errWatchEnded
			}
			if resp.Err != nil {
				return resp.Err
			}
			c.up.backoff = 0
			batch, end := c.drain(ch, append(c.up.batch[:0], resp))
			c.receive(batch)
			clear(batch) // let the applied events' values go
			c.up.batch = batch[:0]
			if end != nil {
				return end
			}
		case <-c.up.bookmarkTick:
			c.bookmarkRound()
		case <-c.up.houseTick:
			c.housekeep()
		case <-c.ctx.Done():
			return c.ctx.Err()
		}
	}
}

// maxDrain bounds the responses applied as one change of the cache.
const maxDrain = 64

// drain appends to batch the responses already waiting on ch, at most
// maxDrain in all, without blocking. Applied together, they are one
// change of the cache's trees: each node on their paths is copied once
// for the batch, not once per event, which is what lets the cache keep up
// when writers outrun it. end is the error the watch ends with when an
// error response or the channel's close came after them.
func (c *Cache) drain(ch <-chan storage.WatchResponse, batch []storage.WatchResponse) (_ []storage.WatchResponse, end error) {
	c.up.received++
	yielded := false
	for len(batch) < maxDrain {
		select {
		case resp, ok := <-ch:
			switch {
			case !ok:
				return batch, errWatchEnded
			case resp.Err != nil:
				return batch, resp.Err
			}
			c.up.received++
			batch = append(batch, resp)
		default:
			if yielded {
				return batch, nil
			}
			// Let the writers run once: under load, the responses
			// they make meanwhile join this batch.
			yielded = true
			runtime.Gosched()
		}
	}
	return batch, nil
}

// receive applies upstream responses, in order, and publishes the
// result. Responses without events only advance the revision; a batch of
// them alone is a progress notification.
func (c *Cache) receive(batch []storage.WatchResponse) {
	st := c.cur.Load()
	rev, events := int64(0), 0
	for i := range batch {
		rev = max(rev, batch[i].Revision)
		events += len(batch[i].Events)
	}
	if events == 0 {
		c.progress(st, rev)
		return
	}
	next := *st
	now := c.now()
	// One generation for the batch: the nodes it creates are reachable
	// only from next until it is published, so later events of the
	// batch may change them in place.
	gen := c.nextGen()
	for i := range batch {
		for j := range batch[i].Events {
			c.apply(&next, &batch[i].Events[j], now, gen)
		}
	}
	next.rev = max(next.rev, rev)
	if over := next.log.len() - c.opts.EventWindow; over > 0 {
		c.evict(&next, next.log.first+int64(over))
	}
	c.evictBytes(&next)
	c.publish(&next)
	c.releaseFrames(&next, next.log.first, now)
}

// apply records one event in next: the mirror, the window and the
// revision, changing the trees with generation gen. An event at or below
// the cache's revision was applied already (a resumed watch may repeat
// it) and is skipped.
func (c *Cache) apply(next *state, ev *storage.Event, now int64, gen uint64) {
	rev := ev.KV.ModRevision
	if rev <= next.rev {
		return
	}
	key := ev.KV.Key
	prev, _ := tree.Get(next.root, key)
	indexed := prev // the entry the index has under key
	if prev == nil && ev.PrevKV != nil {
		prev = c.entry(ev.PrevKV)
	}
	rec := &record{rev: rev, at: now, prev: prev}
	switch ev.Type {
	case storage.EventPut:
		rec.entry = c.entry(ev.KV)
		next.root, _, _ = tree.Put(next.root, rec.entry, gen)
	case storage.EventDelete:
		if prev == nil { // nothing the cache or its watchers know of
			next.rev = rev
			return
		}
		next.root, _, _ = tree.Delete(next.root, key, gen)
		rec.tomb.Store(prev.stamped(rev))
	}
	if next.index != nil {
		var before, after []string
		if indexed != nil {
			before = c.terms(indexed.KV)
		}
		if rec.entry != nil {
			after = c.terms(rec.entry.KV)
		}
		next.index = reindex(next.index, key, before, after, gen)
	}
	next.log = next.log.appended(rec)
	next.logBytes += rec.size()
	next.rev = rev
	next.changes++
}

// evict drops the records before first from next's window; the last one
// dropped becomes the base.
func (c *Cache) evict(next *state, first int64) {
	for i := next.log.first; i < first; i++ {
		next.logBytes -= next.log.at(i).size()
	}
	c.releaseFrames(next, first, 0)
	next.base = next.log.at(first - 1)
	next.log = next.log.trimmed(first)
}

// evictBytes drops the oldest records while the window holds more than
// Options.EventWindowBytes; it keeps the newest record, whatever its size.
func (c *Cache) evictBytes(next *state) {
	limit := c.opts.EventWindowBytes
	if limit < 0 || next.logBytes <= limit {
		return
	}
	first, held := next.log.first, next.logBytes
	for held > limit && first < next.log.end-1 {
		held -= next.log.at(first).size()
		first++
	}
	if first > next.log.first {
		c.evict(next, first)
	}
}

// progress handles a progress notification: the revision advances and,
// at most once per progressBookmarkSpacing, watchers get a bookmark.
func (c *Cache) progress(st *state, rev int64) {
	if rev <= st.rev || !st.ready {
		return
	}
	next := *st
	next.rev = rev
	if now := c.now(); now-c.up.lastProgress >= int64(progressBookmarkSpacing) {
		c.up.lastProgress = now
		next.bookmarks++
	}
	c.publish(&next)
}

// bookmarkRound makes every watcher that allows bookmarks send one.
func (c *Cache) bookmarkRound() {
	next := *c.cur.Load()
	next.bookmarks++
	c.publish(&next)
}

// housekeep wakes blocked watchers to check for stalls, drops events
// older than the window's duration, the encodings of events older than
// frameTTL and the rebuilt past states unused for SnapshotTTL.
func (c *Cache) housekeep() {
	c.heartbeat()
	st := c.cur.Load()
	now := c.now()
	cutoff := now - int64(c.opts.EventWindowDuration)
	first := st.log.first
	for first < st.log.end && st.log.at(first).at < cutoff {
		first++
	}
	if first > st.log.first {
		next := *st
		c.evict(&next, first)
		c.publish(&next)
		st = &next
	}
	c.releaseFrames(st, st.log.first, now)
	c.snaps.expire(now - int64(c.opts.SnapshotTTL))
}
