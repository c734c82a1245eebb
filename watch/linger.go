package watch

import "time"

// Lingering. Each change wakes every watcher's goroutine, and each
// delivery wakes the watcher's consumer, which (for a server) writes the
// event to its peer and wakes the peer's reader: a cost per event and per
// watcher that does not depend on what the event carries. With many
// watchers of a busy resource, that cost, not the events, takes the
// machine: at 500 changes a second and 1,000 watchers it is half a
// million wake-ups and writes a second. So when a cache has many
// watchers, a watcher woken by a change that comes soon after its last
// delivery holds it back until a linger has passed since that delivery,
// and then delivers every change that arrived meanwhile in one go: its
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
	lingerPerWatcher = 25 * time.Microsecond
	// maxLinger is the longest linger: BenchmarkWatchFanOut's 1,000
	// watchers reach it.
	maxLinger = 25 * time.Millisecond
)

// lingerFor returns how long the watchers of a cache with n watchers
// linger.
func lingerFor(n int64) time.Duration {
	if n < lingerFloor {
		return 0
	}
	return min(time.Duration(n)*lingerPerWatcher, maxLinger)
}

// linger is called when a change woke the watcher: it waits, if the
// cache's watchers linger, until the linger has passed since the watcher's
// last delivery, and records this delivery's time. It returns early for a
// requested bookmark, and fails when the watch ends meanwhile.
func (w *Watcher) linger() error {
	d := w.c.linger(w.c.active.Load())
	now := time.Now()
	wait := w.delivered.Add(d).Sub(now)
	if d <= 0 || wait <= 0 {
		w.delivered = now
		return nil
	}
	if w.timer == nil {
		w.timer = time.NewTimer(wait)
	} else {
		w.timer.Reset(wait)
	}
	select {
	case <-w.timer.C:
	case <-w.wake: // a requested bookmark: the loop sends it now
		w.timer.Stop()
	case <-w.ctx.Done():
		return errDone
	case <-w.c.ctx.Done():
		return ErrStopped
	}
	w.delivered = time.Now()
	return nil
}
