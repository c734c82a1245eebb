package registry

import (
	"errors"

	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// StorageError maps a storage failure onto a Status: 503 with
// Retry-After when the store could not be reached and nothing was
// written, 504 Timeout when a write's outcome is unknown.
func StorageError(err error) error {
	var se *status.Error
	switch {
	case errors.As(err, &se):
		return err
	case storage.IsCompacted(err):
		return status.Expired("The resourceVersion for the provided list is too old.")
	case storage.IsTimeout(err):
		// The write may still be applied: not "try again" as if it
		// had not been, but what kube-apiserver answers when etcd
		// hangs.
		return status.Timeout(filters.WriteTimeoutMessage, 0)
	case storage.IsUnavailable(err):
		e := status.ServiceUnavailable("storage is unavailable, please try again")
		e.Status.Details = &meta.StatusDetails{RetryAfterSeconds: 1}
		return e
	}
	return status.InternalError(err)
}
