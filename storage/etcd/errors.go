package etcd

import (
	"context"
	"errors"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/kapi-dev/kapi/storage"
)

var (
	errCompacted = rpctypes.ErrCompacted
	errFutureRev = rpctypes.ErrFutureRev
)

// probeTimeout bounds the watch that asks etcd for its compact revision.
const probeTimeout = 5 * time.Second

// isEtcdError reports whether err is the etcd server error target.
func isEtcdError(err, target error) bool {
	var ee rpctypes.EtcdError
	return errors.As(err, &ee) && ee == target
}

// error maps an error of the etcd client onto the storage errors (see the
// package documentation).
func (s *Store) error(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case isEtcdError(err, errCompacted):
		rev, perr := s.compactRevision(ctx)
		if perr != nil {
			return s.error(ctx, perr)
		}
		return &storage.Error{Code: storage.ErrCompacted, Revision: rev, Err: err}
	case isEtcdError(err, errFutureRev):
		rev, rerr := s.Revision(ctx)
		if rerr != nil {
			return rerr
		}
		return &storage.Error{Code: storage.ErrFutureRevision, Revision: rev, Err: err}
	case unavailable(ctx, err):
		return &storage.Error{Code: storage.ErrUnavailable, Err: err}
	}
	return err
}

// writeError maps an error of a write as error does, except that a
// write etcd may have applied (its answer timed out, or was lost with
// the connection) is ErrTimeout: ErrUnavailable says that nothing was
// written, which only a refusal shows.
func (s *Store) writeError(ctx context.Context, err error) error {
	mapped := s.error(ctx, err)
	if storage.IsUnavailable(mapped) && !refused(err) {
		return &storage.Error{Code: storage.ErrTimeout, Err: err}
	}
	return mapped
}

// refused reports whether err turns a request down before etcd could
// apply it: no leader to propose it to, too many requests, no space
// left, an unhealthy member, no endpoint to send it to, or a client
// closed before sending.
func refused(err error) bool {
	var ee rpctypes.EtcdError
	if errors.As(err, &ee) {
		switch ee {
		case rpctypes.ErrNoLeader, rpctypes.ErrTooManyRequests, rpctypes.ErrNoSpace, rpctypes.ErrUnhealthy:
			return true
		}
		return false
	}
	if errors.Is(err, clientv3.ErrNoAvailableEndpoints) || errors.Is(err, context.Canceled) {
		return true
	}
	st, ok := status.FromError(err)
	return ok && st.Code() == codes.Canceled
}

// unavailable reports whether err says etcd cannot answer now: the
// cluster has no leader or quorum, a request timed out, the connection or
// the client is gone, or etcd sheds load.
func unavailable(ctx context.Context, err error) bool {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		// The caller gave up (or its own deadline passed): report that
		// as is, unless it was a deadline, which says etcd was too slow.
		return errors.Is(err, context.DeadlineExceeded)
	}
	var ee rpctypes.EtcdError
	if errors.As(err, &ee) {
		switch ee.Code() {
		case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted:
			return true
		}
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, clientv3.ErrNoAvailableEndpoints) {
		// Not the caller's context: the client's own, which Close
		// cancels.
		return true
	}
	if st, ok := status.FromError(err); ok {
		switch st.Code() {
		case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
			return true
		}
	}
	return false
}

// compactRevision asks etcd for its compact revision: a watch from
// revision 1 is answered at once with it (when something was compacted).
func (s *Store) compactRevision(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	wch := s.client.Watch(clientv3.WithRequireLeader(ctx), s.key("/\x00compact-revision-probe"), clientv3.WithRev(1))
	for resp := range wch {
		if resp.CompactRevision != 0 {
			return resp.CompactRevision, nil
		}
		if err := resp.Err(); err != nil {
			return 0, err
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("etcd: watch closed")
}
