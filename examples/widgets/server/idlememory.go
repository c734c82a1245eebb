package server

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// DefaultIdleMemoryRelease is the command's --idle-memory-release.
//
// After a burst of writes the Go runtime keeps the heap's freed pages
// for the allocations it expects next: the resident set stays near the
// burst's peak, about 1.75 times the live heap at GOGC 75, and the
// background scavenger only returns what lies above that goal. Most of a
// server's life is quieter than its bursts, so once allocation has been
// low for this long the command returns the free pages at once (a
// collection and a scavenge, as debug.FreeOSMemory does), and again only
// after the heap has grown. Measured from outside after 10,000 Widgets of
// about 1.9 KB were created and had their status written once, the
// resident set grew by 4.5 KB per Widget instead of 5.6 KB (at GOGC 50,
// before stored values kept their managedFields apart).
const DefaultIdleMemoryRelease = 5 * time.Second

const (
	// quietAllocRate is the allocation rate, in bytes per second, below
	// which the process counts as quiet: a few list or watch requests a
	// second stay under it, a burst of writes does not.
	quietAllocRate = 4 << 20
	// releaseWorth is the least free heap worth a release: below it, a
	// full collection costs more than the pages are worth.
	releaseWorth = 4 << 20
)

// heapSample is what idleRelease reads of the runtime.
type heapSample struct {
	allocated uint64 // bytes allocated since the process started
	// free is what a collection and a scavenge would return: the free
	// heap not yet returned to the system, and the objects allocated
	// since the last collection beyond the live heap it found (a quiet
	// process starts no collection, so the end of a burst's garbage
	// stays allocated).
	free uint64
}

// idleRelease decides when the free heap goes back to the system.
type idleRelease struct {
	after time.Duration
	last  heapSample
	lastAt,
	quietSince time.Time
	released bool // since the process was last busy
}

// observe takes a sample taken at now and reports whether to release.
func (r *idleRelease) observe(s heapSample, now time.Time) bool {
	defer func() { r.last, r.lastAt = s, now }()
	if r.lastAt.IsZero() {
		r.quietSince = now
		return false
	}
	elapsed := now.Sub(r.lastAt).Seconds()
	if elapsed <= 0 {
		return false
	}
	if float64(s.allocated-r.last.allocated)/elapsed > quietAllocRate {
		r.quietSince, r.released = now, false
		return false
	}
	if r.released || now.Sub(r.quietSince) < r.after || s.free < releaseWorth {
		return false
	}
	r.released = true
	return true
}

// releaseIdleMemory samples the heap every second until ctx is done and
// returns its free pages to the system whenever r says so; after zero
// turns it off.
func releaseIdleMemory(ctx context.Context, after time.Duration) {
	if after <= 0 {
		return
	}
	r := &idleRelease{after: after}
	samples := []metrics.Sample{
		{Name: "/gc/heap/allocs:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			metrics.Read(samples)
			s := heapSample{allocated: samples[0].Value.Uint64(), free: samples[1].Value.Uint64()}
			if objects, live := samples[2].Value.Uint64(), samples[3].Value.Uint64(); objects > live {
				s.free += objects - live
			}
			if r.observe(s, now) {
				debug.FreeOSMemory()
			}
		}
	}
}
