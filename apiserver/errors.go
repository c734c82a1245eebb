package apiserver

import (
	"errors"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// storageError maps a storage failure onto a Status.
func storageError(err error) error {
	var se *status.Error
	switch {
	case errors.As(err, &se):
		return err
	case storage.IsCompacted(err):
		return status.Expired("The resourceVersion for the provided list is too old.")
	case storage.IsUnavailable(err):
		e := status.ServiceUnavailable("storage is unavailable, please try again")
		e.Status.Details = &meta.StatusDetails{RetryAfterSeconds: 1}
		return e
	}
	return status.InternalError(err)
}
