package resourceversion

import (
	"fmt"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// TooLargeResourceVersion is the 504 kube-apiserver answers when a read
// asks for a revision the store has not reached in time: reason Timeout,
// message "Timeout: Too large resource version: <requested>, current:
// <current>", one cause of type ResourceVersionTooLarge, and
// retryAfterSeconds 1 (the server sends it as Retry-After).
func TooLargeResourceVersion(current, requested int64) error {
	e := status.Timeout(fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", requested, current), 1)
	e.Status.Details.Causes = []meta.StatusCause{{
		Type:    meta.CauseTypeResourceVersionTooLarge,
		Message: "Too large resource version",
	}}
	return e
}
