// Package storage defines the interface kapi's resource stores implement.
//
// The model is etcd v3's, so that an etcd backend is a thin layer: keys are
// strings, values are opaque bytes, and every write advances one store-wide
// revision. An object's resourceVersion is the revision of its last write
// (its ModRevision); a list's resourceVersion is the revision it was read at.
// Writes are compare-and-swap on the object's ModRevision. Watches start
// from a revision and deliver every change after it, in order. Old
// revisions are compacted: reading at a revision at or below the compacted
// one, or watching from one below it, fails with an [Error] whose Code is
// [ErrCompacted].
//
// Implementations: storage/memory (embedded, the default) and storage/etcd.
package storage

import (
	"context"
	"errors"
	"fmt"
	"unique"
)

// KeyValue is one stored object.
type KeyValue struct {
	Key   string
	Value []byte
	// Shared is the part of the object its writer keeps once for every
	// value that holds the same bytes (see [SharedKeeper]); with Value it
	// makes the object, in a form only the writer knows. The zero Handle
	// means Value is the whole object, which it always is in a store that
	// does not keep shared parts.
	Shared unique.Handle[string]
	// CreateRevision is the revision at which the key was created.
	CreateRevision int64
	// ModRevision is the revision of the key's last write: the object's
	// resourceVersion.
	ModRevision int64
}

// Interface is a revisioned key-value store. All methods are safe for
// concurrent use. Keys handed to List and Watch are prefixes and must end in
// "/" so that one resource's prefix never matches another's keys.
type Interface interface {
	// Get reads one key. A missing key is not an error: the response's KV
	// is nil.
	Get(ctx context.Context, key string, opts GetOptions) (GetResponse, error)

	// List reads the keys under prefix in key order, at opts.Revision (0
	// means the current revision), starting after opts.After when set,
	// returning at most opts.Limit keys when it is positive. The response
	// says how many keys remain beyond the page.
	List(ctx context.Context, prefix string, opts ListOptions) (ListResponse, error)

	// OptimisticPut writes value at key if the key's ModRevision is
	// expectedRevision; an expectedRevision of 0 means the key must not
	// exist. When the comparison fails, Succeeded is false and KV holds the
	// current value (nil when the key is absent); that is not an error.
	OptimisticPut(ctx context.Context, key string, value []byte, expectedRevision int64, opts PutOptions) (PutResponse, error)

	// OptimisticDelete removes key if its ModRevision is expectedRevision.
	// When the comparison fails, Succeeded is false and KV holds the
	// current value (nil when the key is absent).
	OptimisticDelete(ctx context.Context, key string, expectedRevision int64, opts DeleteOptions) (DeleteResponse, error)

	// Watch streams every change under prefix after opts.Revision (0 means
	// from now). The channel is closed when ctx is done or the watch fails;
	// a failure is delivered as a last response with Err set (an [Error]
	// with [ErrCompacted] when the revision is gone).
	Watch(ctx context.Context, prefix string, opts WatchOptions) <-chan WatchResponse

	// Revision returns the store's current revision.
	Revision(ctx context.Context) (int64, error)

	// Compact discards history at and below revision.
	Compact(ctx context.Context, revision int64) error
}

// ProgressRequester is implemented by stores whose watches report their
// progress only now and then on their own (etcd: every ten minutes by
// default). RequestProgress asks every watch with ProgressNotify to send a
// progress response soon; a watch cache calls it when a consistent read
// waits for it to reach the store's revision.
type ProgressRequester interface {
	RequestProgress(ctx context.Context) error
}

// GetOptions tunes Get.
type GetOptions struct {
	// Revision reads the key as it was at that revision; 0 means now.
	Revision int64
}

// GetResponse is the result of Get.
type GetResponse struct {
	KV       *KeyValue
	Revision int64
}

// ListOptions tunes List.
type ListOptions struct {
	// Revision reads at that revision; 0 means now.
	Revision int64
	// After starts the listing strictly after this key (a continuation).
	After string
	// Limit caps the number of keys returned when positive.
	Limit int64
}

// ListResponse is the result of List.
type ListResponse struct {
	KVs []*KeyValue
	// Remaining is the number of keys under the prefix after the last one
	// returned.
	Remaining int64
	// Revision is the revision the list was read at.
	Revision int64
}

// PutOptions tunes OptimisticPut.
type PutOptions struct {
	// ValueOwned hands value over to the store: the caller will not
	// modify it after the call (it may still read it), so a store that
	// keeps values in memory may keep value itself instead of a copy.
	// Without it the store never keeps the caller's bytes.
	ValueOwned bool
	// Shared is kept with the value and returned with it, as
	// KeyValue.Shared, by a store that implements [SharedKeeper]. Writers
	// set it only for such stores: any other store ignores it.
	Shared unique.Handle[string]
}

// SharedKeeper is implemented by stores that keep values in memory and
// keep PutOptions.Shared with them. A writer that finds a part common to
// many of its values (an object's managedFields, the same for every
// object one client wrote in one second) gives it as a
// [unique.Handle], so that the bytes are kept once however many values
// hold them, and leaves them out of the value. A store that persists
// values does not implement it: it must be given whole objects.
type SharedKeeper interface {
	KeepsShared() bool
}

// PutResponse is the result of OptimisticPut.
type PutResponse struct {
	Succeeded bool
	// KV is the written value on success, the current one on failure.
	KV       *KeyValue
	Revision int64
}

// DeleteOptions tunes OptimisticDelete.
type DeleteOptions struct{}

// DeleteResponse is the result of OptimisticDelete.
type DeleteResponse struct {
	Succeeded bool
	// KV is the deleted value on success, the current one on failure.
	KV       *KeyValue
	Revision int64
}

// WatchOptions tunes Watch.
type WatchOptions struct {
	// Revision delivers changes after this revision; 0 means from now.
	Revision int64
	// ProgressNotify asks for empty responses carrying the revision the
	// watch has reached when nothing under the prefix changes:
	// periodically, and soon after a [ProgressRequester]'s
	// RequestProgress, so that a watch cache can tell it is current
	// without waiting for the next period.
	ProgressNotify bool
}

// EventType says whether an event wrote or removed a key.
type EventType int

// The event types.
const (
	EventPut EventType = iota
	EventDelete
)

// Event is one change.
type Event struct {
	Type EventType
	// KV is the new value for a put; for a delete it holds the key and
	// ModRevision is the revision of the delete.
	KV *KeyValue
	// PrevKV is the value before the change, nil for a create.
	PrevKV *KeyValue
}

// IsCreate reports whether a put created its key.
func (e Event) IsCreate() bool { return e.Type == EventPut && e.KV.CreateRevision == e.KV.ModRevision }

// WatchResponse is one batch of events, or a progress notification (no
// events, Revision set), or a failure (Err set, always the last).
type WatchResponse struct {
	Events []Event
	// Revision is the store's revision when the response was sent; every
	// change at or below it has been delivered.
	Revision int64
	Err      error
}

// ErrorCode classifies storage errors.
type ErrorCode int

// The error codes.
const (
	// ErrCompacted: the requested revision has been compacted.
	ErrCompacted ErrorCode = iota + 1
	// ErrFutureRevision: the requested revision is newer than the store's.
	ErrFutureRevision
	// ErrUnavailable: the store cannot be reached or has no quorum; a
	// write that fails with it was not made.
	ErrUnavailable
	// ErrTimeout: a write got no answer in time (the store's own bound,
	// or the store's answer that it timed out, or a connection lost on
	// the way): it may still be applied, or may not.
	ErrTimeout
)

// Error is a storage failure the API maps onto a Status.
type Error struct {
	Code ErrorCode
	// Revision is the revision involved: the compacted one for
	// ErrCompacted, the current one for ErrFutureRevision.
	Revision int64
	Err      error
}

func (e *Error) Error() string {
	switch e.Code {
	case ErrCompacted:
		return fmt.Sprintf("storage: revision %d has been compacted", e.Revision)
	case ErrFutureRevision:
		return fmt.Sprintf("storage: revision is newer than the current revision %d", e.Revision)
	case ErrUnavailable:
		return fmt.Sprintf("storage: unavailable: %v", e.Err)
	case ErrTimeout:
		return fmt.Sprintf("storage: write timed out: %v", e.Err)
	}
	return fmt.Sprintf("storage: %v", e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// IsCompacted reports whether err is (or wraps) an ErrCompacted.
func IsCompacted(err error) bool { return codeOf(err) == ErrCompacted }

// IsFutureRevision reports whether err is (or wraps) an ErrFutureRevision.
func IsFutureRevision(err error) bool { return codeOf(err) == ErrFutureRevision }

// IsUnavailable reports whether err is (or wraps) an ErrUnavailable.
func IsUnavailable(err error) bool { return codeOf(err) == ErrUnavailable }

// IsTimeout reports whether err is (or wraps) an ErrTimeout.
func IsTimeout(err error) bool { return codeOf(err) == ErrTimeout }

func codeOf(err error) ErrorCode {
	var se *Error
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}
