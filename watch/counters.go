package watch

import "sync/atomic"

// Counters counts what caches do, for a host's metrics and for tests that
// must prove a property rather than assume it. The host creates one and
// passes it in [Options.Counters]; every cache built with those options
// adds to it, so one Counters can cover all of a server's resources. The
// zero value is ready to use. Its methods are safe for concurrent use.
type Counters struct {
	encodings atomic.Int64
	slow      atomic.Int64
}

// Encodings returns how many times an encode function given to
// [Event.Encoded] ran for a change: the number of event encodings made
// and shared, which is one per change, event type and media type however
// many watchers receive the change.
func (c *Counters) Encodings() int64 { return c.encodings.Load() }

// SlowWatchers returns how many watchers ended with [ErrTooSlow].
func (c *Counters) SlowWatchers() int64 { return c.slow.Load() }

// The adders accept a nil Counters: counting is optional.

func (c *Counters) addEncoding() {
	if c != nil {
		c.encodings.Add(1)
	}
}

func (c *Counters) addSlow() {
	if c != nil {
		c.slow.Add(1)
	}
}
