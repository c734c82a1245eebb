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
	// etcd was too slow.
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
}
