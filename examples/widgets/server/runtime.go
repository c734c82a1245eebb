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
// collections, and after a burst of writes the resident set stays near
// that peak. 50 bounds the growth to half the live heap: measured from
// outside after 10,000 Widgets of about 1.9 KB were created and had their
// status written once (20,000 writes over HTTP), the resident set grew
// by about 6.0 KB per Widget instead of 7.8 KB, for about 7% more CPU
// time in the server for those writes. Reads allocate little, so they
// barely notice.
//
// As with any Go program, GOGC in the environment wins (kube-apiserver's
// operators tune it that way), and GOMEMLIMIT sets a soft memory limit;
// --gc-percent=100 gives Go's default. Only the command sets it: a host
// that embeds the server ([Open], [NewHandler]) tunes its own process.
const DefaultGCPercent = 50

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
