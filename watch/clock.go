package watch

import "time"

// Clock is the cache's source of time for the event window's age bound,
// snapshot expiry and bookmarks. Tests substitute a fake; the zero
// [Options] use the system clock. Waits for freshness and retry back-offs
// always use real time.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTicker returns a ticker that fires about every d.
	NewTicker(d time.Duration) Ticker
}

// Ticker is what [Clock.NewTicker] returns, like a [time.Ticker].
type Ticker interface {
	// C delivers the ticks; a tick is dropped when the last one has not
	// been received yet.
	C() <-chan time.Time
	// Stop turns the ticker off.
	Stop()
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) NewTicker(d time.Duration) Ticker { return realTicker{time.NewTicker(d)} }

type realTicker struct{ t *time.Ticker }

func (t realTicker) C() <-chan time.Time { return t.t.C }
func (t realTicker) Stop()               { t.t.Stop() }
