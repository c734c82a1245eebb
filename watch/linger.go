package watch

import "time"

// Lingering. Each change wakes every watcher's goroutine, and each
// delivery wakes the watcher's consumer, which (for a server) writes the
// event to its peer and wakes the peer's reader: a cost per event and per
// watcher that does not depend on what the event carries. With many
// watchers of a busy resource, that cost, not the events, takes the
// machine: at 500 changes a second and 1,000 watchers it is half a
// million wake-ups and writes a second. So when a cache has many
// watchers, a watcher that has just delivered waits until a linger has
// passed before it looks for more, and then delivers every change that
// arrived meanwhile in one go: its
// consumer takes them together and writes them in one piece. A change
// after a quiet spell (longer than the linger) goes out at once, so a
// quiet resource, or one with few watchers, sees no delay at all.
//
// The linger grows with the cache's watchers, since the cost it saves
// does, and is bounded, since it adds to every held change's delay.
const (
	// lingerFloor is the fewest watchers for which a cache lingers.
	lingerFloor = 32
	// lingerPerWatcher is the linger each watcher of the cache adds.
	lingerPerWatcher = 50 * time.Microsecond
	// maxLinger is the longest linger: BenchmarkWatchFanOut's 1,000
	// watchers reach it.
	maxLinger = 50 * time.Millisecond
)

// lingerFor returns how long the watchers of a cache with n watchers
// linger.
func lingerFor(n int64) time.Duration {
	if n < lingerFloor {
		return 0
	}
	return min(time.Duration(n)*lingerPerWatcher, maxLinger)
}

// hold is called when the watcher has delivered changes and caught up:
// if the cache's watchers linger, or the watcher asked for a spacing
// ([WatchOptions.Spacing]), it waits until the longer has passed, so that
// the changes that come meanwhile go out together, and a change after a
// quiet spell finds the watcher waiting for it, which delivers it at
// once. The wait costs one wake-up, where waking for the first change
// and then waiting out the linger cost two. It returns early for a
// requested bookmark, and fails when the watch ends meanwhile.
func (w *Watcher) hold() error {
	d := max(w.c.linger(w.c.active.Load()), w.opts.Spacing)
	if d <= 0 {
		return nil
	}
	if w.timer == nil {
		w.timer = time.NewTimer(d)
	} else {
		w.timer.Reset(d)
	}
	select {
	case <-w.timer.C:
	case <-w.wake: // a requested bookmark: the loop sends it now
		w.timer.Stop()
	case <-w.ctx.Done():
		return w.ended()
	}
	return nil
}
