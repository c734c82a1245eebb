package apiserver

import (
	"sync/atomic"
	"time"
)

// The pace of a watch stream's flushes. A flush is a write system call
// (three for a batch over 4 KB, through net/http's chunked writer) and a
// wake-up of the peer, and costs about the same whatever it carries, so
// what a server can afford is a number of flushes per second, not of
// events. The streams of one server share flushBudget flushes a second:
// each waits at least its share of a second (minFlushSpacing at least,
// maxFlushSpacing at most) after a flush before the next one, gathering
// the events that arrive meanwhile. A stream that was quiet for that long
// flushes an event as soon as it comes, so few watchers, or few events,
// see almost no delay; many watchers of a busy resource see their events
// in larger, fewer writes, and the writers that cause the events keep
// their CPU.
//
// Measured with BenchmarkWatchFanOut at 500 updates/s on 2 cores (see
// examples/bench): with a fixed 3 ms spacing, 1,000 watchers flushed after
// nearly every event and the write path was starved of CPU.
const (
	minFlushSpacing = 3 * time.Millisecond
	maxFlushSpacing = 50 * time.Millisecond
	flushBudget     = 25000 // flushes per second over all streams
)

// watchStreams counts the watch responses a server is writing.
type watchStreams struct{ n atomic.Int64 }

// open counts one more stream and returns the function that uncounts it.
func (s *watchStreams) open() func() {
	s.n.Add(1)
	return func() { s.n.Add(-1) }
}

// spacing is the least time between two flushes of one stream, with the
// server's current number of streams.
func (s *watchStreams) spacing() time.Duration {
	return flushSpacingFor(s.n.Load())
}

// flushSpacingFor is the spacing that keeps n streams within flushBudget.
func flushSpacingFor(n int64) time.Duration {
	d := time.Duration(n) * time.Second / flushBudget
	return min(max(d, minFlushSpacing), maxFlushSpacing)
}
