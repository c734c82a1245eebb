package watch

import (
	"errors"
	"fmt"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
)

var (
	// ErrTooSlow ends a watcher whose consumer is too slow: it took no
	// event for [Options.StallTimeout] while one was waiting, or it fell
	// so far behind that the next event it needed has left the event
	// window. The consumer may watch again from the last revision it
	// received (which fails with a 410 Expired when that revision has left
	// the window) or list again. kube-apiserver ends such watches without
	// an ERROR event; a server should do the same.
	ErrTooSlow = errors.New("watch: the watcher fell behind the event window")

	// ErrStopped is returned by every call on a stopped [Cache] and ends
	// its watchers. A server maps it to 503 Service Unavailable.
	ErrStopped = errors.New("watch: cache stopped")
)

// expired is the 410 Expired for a watch from a revision whose events
// have left the window (oldest is the oldest revision a watch can start
// from), in kube-apiserver's words.
func expired(rev, oldest int64) error {
	return status.Expired(fmt.Sprintf("too old resource version: %d (%d)", rev, oldest))
}

// notReady is kube-apiserver's answer while its cache has not loaded: a
// 429 with Retry-After 1.
func notReady() error {
	return status.TooManyRequests("storage is (re)initializing", 1)
}

// tooLarge is the 504 for a read that waited in vain for the cache to
// reach revision want.
func tooLarge(current, want int64) error {
	return resourceversion.TooLargeResourceVersion(current, want)
}

// listExpired is the 410 for a list at a revision neither the cache nor
// the store still has: a continuation gets a token that resumes at the
// current revision, as in kube-apiserver.
func listExpired(opts resourceversion.List) error {
	if opts.Semantics == resourceversion.Continuation && opts.Continue != nil {
		return resourceversion.ContinueExpired(*opts.Continue)
	}
	return status.Expired("The resourceVersion for the provided list is too old.")
}
