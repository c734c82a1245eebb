package etcd

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/kapi-dev/kapi/storage"
)

func TestErrorMapping(t *testing.T) {
	s := New(nil, Options{}) // the mapped errors never reach the client
	ctx := context.Background()
	for _, tc := range []struct {
		err         error
		unavailable bool
	}{
		{rpctypes.ErrNoLeader, true},
		{rpctypes.ErrLeaderChanged, true},
		{rpctypes.ErrTimeout, true},
		{rpctypes.ErrTimeoutDueToLeaderFail, true},
		{rpctypes.ErrTimeoutDueToConnectionLost, true},
		{rpctypes.ErrStopped, true},
		{rpctypes.ErrUnhealthy, true},
		{rpctypes.ErrNoSpace, true},
		{rpctypes.ErrTooManyRequests, true},
		{rpctypes.Error(rpctypes.ErrGRPCNoLeader), true},
		{status.Error(codes.Unavailable, "connection refused"), true},
		{status.Error(codes.DeadlineExceeded, "slow"), true},
		{status.Error(codes.Canceled, "grpc: the client connection is closing"), true},
		{context.DeadlineExceeded, true},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), true},
		{context.Canceled, true}, // the client's context: Close
		{clientv3.ErrNoAvailableEndpoints, true},
		{rpctypes.ErrRequestTooLarge, false},
		{rpctypes.ErrPermissionDenied, false},
		{rpctypes.ErrNotCapable, false},
		{errors.New("something else"), false},
	} {
		err := s.error(ctx, tc.err)
		if storage.IsUnavailable(err) != tc.unavailable {
			t.Errorf("%v: mapped to %v, unavailable %v", tc.err, err, !tc.unavailable)
		}
		if !errors.Is(err, tc.err) {
			t.Errorf("%v: mapped to %v, which does not wrap it", tc.err, err)
		}
	}

	// The caller's own cancellation is returned as is; its deadline says
	// etcd was too slow (for a write, one that may still be applied).
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.error(cctx, context.Canceled); err != context.Canceled {
		t.Errorf("cancelled caller: %v", err)
	}
	dctx, cancel := context.WithTimeout(ctx, 0)
	defer cancel()
	if err := s.error(dctx, context.DeadlineExceeded); !storage.IsUnavailable(err) {
		t.Errorf("caller's deadline: %v", err)
	}
	if err := s.writeError(dctx, context.DeadlineExceeded); !storage.IsTimeout(err) {
		t.Errorf("caller's deadline on a write: %v", err)
	}
	if err := s.writeError(cctx, context.Canceled); err != context.Canceled {
		t.Errorf("cancelled caller's write: %v", err)
	}
}

// TestWriteErrorMapping: a write etcd refused fails with ErrUnavailable
// (nothing was written, the client may try again); one whose outcome is
// unknown with ErrTimeout; other errors are left as they are.
func TestWriteErrorMapping(t *testing.T) {
	s := New(nil, Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		err  error
		code storage.ErrorCode
	}{
		{rpctypes.ErrNoLeader, storage.ErrUnavailable},
		{rpctypes.Error(rpctypes.ErrGRPCNoLeader), storage.ErrUnavailable},
		{rpctypes.ErrTooManyRequests, storage.ErrUnavailable},
		{rpctypes.ErrNoSpace, storage.ErrUnavailable},
		{rpctypes.ErrUnhealthy, storage.ErrUnavailable},
		{clientv3.ErrNoAvailableEndpoints, storage.ErrUnavailable},
		{context.Canceled, storage.ErrUnavailable}, // the client's context: Close
		{status.Error(codes.Canceled, "grpc: the client connection is closing"), storage.ErrUnavailable},
		{rpctypes.ErrTimeout, storage.ErrTimeout},
		{rpctypes.ErrTimeoutDueToLeaderFail, storage.ErrTimeout},
		{rpctypes.ErrTimeoutDueToConnectionLost, storage.ErrTimeout},
		{rpctypes.ErrLeaderChanged, storage.ErrTimeout},
		{rpctypes.ErrStopped, storage.ErrTimeout},
		{status.Error(codes.Unavailable, "connection reset"), storage.ErrTimeout},
		{status.Error(codes.DeadlineExceeded, "slow"), storage.ErrTimeout},
		{context.DeadlineExceeded, storage.ErrTimeout}, // the store's bound
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), storage.ErrTimeout},
		{rpctypes.ErrRequestTooLarge, 0},
		{errors.New("something else"), 0},
	} {
		err := s.writeError(ctx, tc.err)
		var se *storage.Error
		code := storage.ErrorCode(0)
		if errors.As(err, &se) {
			code = se.Code
		}
		if code != tc.code {
			t.Errorf("%v: mapped to %v, code %d, want %d", tc.err, err, code, tc.code)
		}
		if !errors.Is(err, tc.err) {
			t.Errorf("%v: mapped to %v, which does not wrap it", tc.err, err)
		}
	}
}
