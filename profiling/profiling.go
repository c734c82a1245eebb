// Package profiling serves Go's pprof profiles over HTTP, for a host to
// mount behind its own authorization (kube-apiserver serves the same
// paths under --profiling):
//
//	mux.Handle("/debug/pprof/", requireAdmin(profiling.Handler()))
//
// Profiles expose the process's memory and code paths; never mount the
// handler where anyone can reach it. Importing this package imports
// net/http/pprof, whose init also registers these paths on
// http.DefaultServeMux: a host that serves DefaultServeMux exposes them
// there too.
package profiling

import (
	"net/http"
	"net/http/pprof"
)

// Handler serves /debug/pprof/ (the index and every named profile:
// heap, goroutine, allocs, block, mutex, threadcreate) and
// /debug/pprof/cmdline, profile (CPU), symbol and trace, on a mux of its
// own.
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
