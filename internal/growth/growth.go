// Package growth measures how the cost of an operation grows with the
// size of its input, for tests that bound it: a validator or patch engine
// that is linear costs as much on one input k times larger as on k inputs
// of the first size, a quadratic one k times more.
//
// Cost is the process's CPU time (the least of a few runs), which other
// processes on a busy machine do not inflate as they inflate wall time,
// or the bytes allocated.
package growth

import (
	"runtime"
	"testing"
	"time"
)

// runs is how many times each measurement is taken; the least counts.
const runs = 3

// CPU returns the least CPU time the process spent in any of a few runs
// of f.
func CPU(f func()) time.Duration {
	best := time.Duration(-1)
	for range runs {
		runtime.GC()
		start := cpuTime()
		f()
		if d := cpuTime() - start; best < 0 || d < best {
			best = d
		}
	}
	return max(best, time.Microsecond)
}

// Allocated returns the bytes allocated by one run of f.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Check fails t unless large, which does the work of small on an input
// factor times larger, costs at most limit times what factor runs of
// small cost together. A linear operation gives about 1, n·log n a little
// more, a quadratic one about factor. Both sides take about as long, so
// the comparison holds on a busy machine.
func Check(t testing.TB, what string, factor int, limit float64, small, large func()) {
	t.Helper()
	s := CPU(func() {
		for range factor {
			small()
		}
	})
	l := CPU(large)
	ratio := float64(l) / float64(s)
	t.Logf("%s: %v for %d inputs of 1x, %v for one of %dx: ratio %.2f (limit %g)", what, s, factor, l, factor, ratio, limit)
	if ratio > limit {
		t.Errorf("%s: one input %dx larger costs %.1fx more CPU than %d inputs of 1x (%v vs %v), over the %g a linear or n·log n cost stays within",
			what, factor, ratio, factor, l, s, limit)
	}
}
