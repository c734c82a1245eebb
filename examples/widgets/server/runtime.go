package server

import (
	"flag"
	"runtime/debug"
	"time"
)

// DefaultGCPercent is the command's --gc-percent: the Go garbage
// collector's GOGC for the process, unless GOGC is set in the environment.
//
// Most of the server's heap lives long: the stored objects, the watch
// cache's mirror and window, the indexes and the controllers' graphs.
// Go's default, 100, lets the heap grow to twice that between
// collections; 75 bounds the growth to three quarters of the live heap.
// Measured from outside after 10,000 Widgets of about 1.9 KB were created
// and then had their status written once (20,000 writes over HTTP), and
// the server had given back its free memory (see
// DefaultIdleMemoryRelease), the resident set grew by about 3.1 KB per
// Widget at 50, 3.2 KB at 75 and 3.4 KB at 100. The lower the setting,
// the more often the collector runs for the same writes: 75 over the
// live heap of stored values that keep their managedFields apart
// collects about as often as 50 did over the larger heap of values that
// held them, for the CPU time it took then.
//
// As with any Go program, GOGC in the environment wins (kube-apiserver's
// operators tune it that way), and GOMEMLIMIT sets a soft memory limit;
// --gc-percent=100 gives Go's default. Only the command sets it: a host
// that embeds the server ([Open], [NewHandler]) tunes its own process.
const DefaultGCPercent = 75

// addRuntimeFlags adds the flags of the Go runtime's settings.
func addRuntimeFlags(fs *flag.FlagSet, gcPercent *int, idleRelease *time.Duration) {
	fs.IntVar(gcPercent, "gc-percent", DefaultGCPercent,
		"the garbage collector's GOGC (a negative value turns it off) unless GOGC is set in the environment")
	fs.DurationVar(idleRelease, "idle-memory-release", DefaultIdleMemoryRelease,
		"return the heap's free memory to the system once allocation has been low for this long after a burst (0 turns it off)")
}

// gcPercentToSet returns the GOGC the command sets, and whether it sets
// one: not when getenv finds GOGC in the environment.
func gcPercentToSet(flagValue int, getenv func(string) string) (int, bool) {
	if getenv("GOGC") != "" {
		return 0, false
	}
	return flagValue, true
}

// applyGCPercent sets the process's GOGC as gcPercentToSet decides.
func applyGCPercent(flagValue int, getenv func(string) string) {
	if p, ok := gcPercentToSet(flagValue, getenv); ok {
		debug.SetGCPercent(p)
	}
}
