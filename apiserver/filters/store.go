package filters

import (
	"context"

	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// guardedStore is the store a resource's requests write through: each
// write passes the request's deadline gate (see BeginWrite), and every
// call is a span when there is a tracer. The watch cache reads the
// store directly.
type guardedStore struct {
	storage.Interface
	startSpan StartSpan
}

// StartSpan starts a child span of the one on ctx, named name; the
// returned function ends it.
type StartSpan func(ctx context.Context, name string) (context.Context, func(error))

// GuardStore returns st as a resource's requests see it: its writes pass
// the request's deadline gate, which keeps a write from starting once the
// client got its 504 and the 504 from going out once a write succeeded;
// every call is traced with startSpan.
func GuardStore(st storage.Interface, startSpan StartSpan) storage.Interface {
	return &guardedStore{Interface: st, startSpan: startSpan}
}

// A write the store answered settles the request, with an error as with
// a success: the handler's answer goes out (for an error, what
// storageError makes of it), not the deadline's 504. Only a failed
// comparison, which certainly wrote nothing, reopens the gate.

// errDeadline is what a write that may not start any more returns; the
// client never sees it (the 504 is already on its way).
var errDeadline = status.Timeout(TimeoutMessage, 0)

func (g *guardedStore) Get(ctx context.Context, key string, opts storage.GetOptions) (storage.GetResponse, error) {
	ctx, end := g.startSpan(ctx, "storage.get")
	resp, err := g.Interface.Get(ctx, key, opts)
	end(err)
	return resp, err
}

func (g *guardedStore) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResponse, error) {
	ctx, end := g.startSpan(ctx, "storage.list")
	resp, err := g.Interface.List(ctx, prefix, opts)
	end(err)
	return resp, err
}

func (g *guardedStore) OptimisticPut(ctx context.Context, key string, value []byte, expectedRevision int64, opts storage.PutOptions) (storage.PutResponse, error) {
	if !BeginWrite(ctx) {
		return storage.PutResponse{}, errDeadline
	}
	ctx, end := g.startSpan(ctx, "storage.put")
	resp, err := g.Interface.OptimisticPut(ctx, key, value, expectedRevision, opts)
	end(err)
	EndWrite(ctx, err != nil || resp.Succeeded)
	return resp, err
}

func (g *guardedStore) OptimisticDelete(ctx context.Context, key string, expectedRevision int64, opts storage.DeleteOptions) (storage.DeleteResponse, error) {
	if !BeginWrite(ctx) {
		return storage.DeleteResponse{}, errDeadline
	}
	ctx, end := g.startSpan(ctx, "storage.delete")
	resp, err := g.Interface.OptimisticDelete(ctx, key, expectedRevision, opts)
	end(err)
	EndWrite(ctx, err != nil || resp.Succeeded)
	return resp, err
}
