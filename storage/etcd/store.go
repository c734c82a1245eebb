package etcd

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kapi-dev/kapi/storage"
)

// Options configures a [Store].
type Options struct {
	// Prefix is prepended to every key: the storage key "/widgets/a" is
	// the etcd key Prefix+"/widgets/a", and keys read back have it
	// removed. The default, "", stores keys as given. Set it (for example
	// to "/kapi") to share an etcd cluster with other users; a Prefix
	// should not end in "/", since storage keys start with one.
	Prefix string

	// ProgressInterval is how often the store asks etcd for a progress
	// notification ([Store.RequestProgress]) while a watch with
	// ProgressNotify is open. etcd's own periodic notifications come at
	// the server's --watch-progress-notify-interval, ten minutes by
	// default, too rarely for a watch cache that waits for its watch to
	// reach the store's revision. Zero means DefaultProgressInterval;
	// negative turns the requests off, leaving only the server's.
	ProgressInterval time.Duration

	// RequestTimeout bounds every etcd request the store makes except
	// watches. The etcd client retries reads for as long as its context
	// allows, so without a bound a read waits forever while the cluster
	// has no quorum; with one it fails with ErrUnavailable, which a server
	// can answer at once (503 with Retry-After). A write that reaches
	// the bound fails with ErrTimeout instead, since etcd may still apply
	// it (a server answers 504 Timeout). Zero means
	// DefaultRequestTimeout; negative means no bound but the caller's.
	RequestTimeout time.Duration

	// Observer, when set, receives the duration of every etcd request
	// (see [Observer]).
	Observer Observer
}

const (
	// DefaultProgressInterval is the default [Options.ProgressInterval].
	DefaultProgressInterval = 100 * time.Millisecond
	// DefaultRequestTimeout is the default [Options.RequestTimeout]: above
	// etcd's own limit for a proposal (7 s with its default election
	// timeout), so that etcd's "request timed out" comes first when the
	// cluster answers at all.
	DefaultRequestTimeout = 10 * time.Second
)

// Store is a [storage.Interface] over etcd. Create it with [New]. It is
// safe for concurrent use.
type Store struct {
	client           *clientv3.Client
	prefix           string
	progressInterval time.Duration
	requestTimeout   time.Duration
	observer         Observer

	mu              sync.Mutex
	progressWatches int           // open watches with ProgressNotify
	stopProgress    chan struct{} // stops the progress requests
}

var _ storage.Interface = (*Store)(nil)

// New returns a store over client. The store does not own the client:
// the caller closes it when done.
func New(client *clientv3.Client, opts Options) *Store {
	if opts.ProgressInterval == 0 {
		opts.ProgressInterval = DefaultProgressInterval
	}
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	return &Store{client: client, prefix: opts.Prefix, progressInterval: opts.ProgressInterval, requestTimeout: opts.RequestTimeout,
		observer: opts.Observer}
}

// bounded returns ctx limited by the store's request timeout. Errors of
// requests made with it are mapped with it too, so that its deadline
// reads as ErrUnavailable while the caller's cancellation stays as is.
func (s *Store) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.requestTimeout < 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, s.requestTimeout)
}

var errNegativeRevision = errors.New("etcd: negative revision")

// key maps a storage key to its etcd key.
func (s *Store) key(k string) string { return s.prefix + k }

// kv converts an etcd KeyValue.
func (s *Store) kv(kv *mvccpb.KeyValue) *storage.KeyValue {
	return &storage.KeyValue{
		Key:            strings.TrimPrefix(string(kv.Key), s.prefix),
		Value:          kv.Value,
		CreateRevision: kv.CreateRevision,
		ModRevision:    kv.ModRevision,
	}
}

// first converts the first of kvs, nil when there is none.
func (s *Store) first(kvs []*mvccpb.KeyValue) *storage.KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	return s.kv(kvs[0])
}

// rangeAt reads the range key..opts at revision rev (0: current). A read
// at an explicit revision is a transaction that also ranges, count-only,
// over key at rev-1, so that etcd refuses it when rev is the compacted
// revision (etcd only refuses revisions below it).
func (s *Store) rangeAt(ctx context.Context, key string, rev int64, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	if rev < 0 {
		return nil, errNegativeRevision
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	if rev == 0 {
		resp, err := s.client.Get(ctx, key, opts...)
		if err != nil {
			return nil, s.error(ctx, err)
		}
		return resp, nil
	}
	ops := []clientv3.Op{clientv3.OpGet(key, append(opts, clientv3.WithRev(rev))...)}
	if rev > 1 {
		ops = append(ops, clientv3.OpGet(key, clientv3.WithRev(rev-1), clientv3.WithCountOnly()))
	}
	resp, err := s.client.Txn(ctx).Then(ops...).Commit()
	if err != nil {
		return nil, s.error(ctx, err)
	}
	return (*clientv3.GetResponse)(resp.Responses[0].GetResponseRange()), nil
}

// Get implements [storage.Interface].
func (s *Store) Get(ctx context.Context, key string, opts storage.GetOptions) (storage.GetResponse, error) {
	start := time.Now()
	resp, err := s.rangeAt(ctx, s.key(key), opts.Revision)
	s.observe("get", key, start, err)
	if err != nil {
		return storage.GetResponse{}, err
	}
	rev := opts.Revision
	if rev == 0 {
		rev = resp.Header.Revision
	}
	return storage.GetResponse{KV: s.first(resp.Kvs), Revision: rev}, nil
}

// List implements [storage.Interface].
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResponse, error) {
	start := s.key(prefix)
	end := clientv3.GetPrefixRangeEnd(start)
	if opts.After != "" {
		if after := s.key(opts.After) + "\x00"; after > start {
			start = after
		}
	}
	if start == "" {
		start = "\x00" // etcd refuses the empty key; "\x00" is the smallest other
	}
	ropts := []clientv3.OpOption{clientv3.WithRange(end)}
	if opts.Limit > 0 {
		ropts = append(ropts, clientv3.WithLimit(opts.Limit))
	}
	began := time.Now()
	resp, err := s.rangeAt(ctx, start, opts.Revision, ropts...)
	s.observe("list", prefix, began, err)
	if err != nil {
		return storage.ListResponse{}, err
	}
	out := storage.ListResponse{Revision: opts.Revision, Remaining: resp.Count - int64(len(resp.Kvs))}
	if out.Revision == 0 {
		out.Revision = resp.Header.Revision
	}
	if len(resp.Kvs) > 0 {
		out.KVs = make([]*storage.KeyValue, len(resp.Kvs))
		for i, kv := range resp.Kvs {
			out.KVs[i] = s.kv(kv)
		}
	}
	return out, nil
}

// OptimisticPut implements [storage.Interface]. It is one transaction:
// If(ModRevision(key) = expectedRevision) Then(Put, keys-only Get)
// Else(Get).
func (s *Store) OptimisticPut(ctx context.Context, key string, value []byte, expectedRevision int64, _ storage.PutOptions) (storage.PutResponse, error) {
	k := s.key(key)
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	start := time.Now()
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(k), "=", expectedRevision)).
		Then(clientv3.OpPut(k, string(value)), clientv3.OpGet(k, clientv3.WithKeysOnly())).
		Else(clientv3.OpGet(k)).
		Commit()
	s.observe(putOperation(expectedRevision), key, start, err)
	if err != nil {
		return storage.PutResponse{}, s.writeError(ctx, err)
	}
	out := storage.PutResponse{Succeeded: resp.Succeeded, Revision: resp.Header.Revision}
	if !resp.Succeeded {
		out.KV = s.first(resp.Responses[0].GetResponseRange().Kvs)
		return out, nil
	}
	kvs := resp.Responses[1].GetResponseRange().Kvs
	if len(kvs) != 1 { // cannot happen: the Get runs in the same transaction
		return storage.PutResponse{}, errors.New("etcd: written key missing from its transaction")
	}
	out.KV = &storage.KeyValue{
		Key:            key,
		Value:          bytes.Clone(value),
		CreateRevision: kvs[0].CreateRevision,
		ModRevision:    kvs[0].ModRevision,
	}
	return out, nil
}

// OptimisticDelete implements [storage.Interface]. It is one transaction:
// If(ModRevision(key) = expectedRevision) Then(Delete, returning the
// previous value) Else(Get). An expectedRevision of 0 or less matches no
// key, so it is answered with a Get.
func (s *Store) OptimisticDelete(ctx context.Context, key string, expectedRevision int64, _ storage.DeleteOptions) (storage.DeleteResponse, error) {
	if expectedRevision <= 0 {
		// etcd's ModRevision = 0 holds for a missing key; refuse it here.
		g, err := s.Get(ctx, key, storage.GetOptions{})
		if err != nil {
			return storage.DeleteResponse{}, err
		}
		return storage.DeleteResponse{KV: g.KV, Revision: g.Revision}, nil
	}
	k := s.key(key)
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	start := time.Now()
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(k), "=", expectedRevision)).
		Then(clientv3.OpDelete(k, clientv3.WithPrevKV())).
		Else(clientv3.OpGet(k)).
		Commit()
	s.observe("delete", key, start, err)
	if err != nil {
		return storage.DeleteResponse{}, s.writeError(ctx, err)
	}
	out := storage.DeleteResponse{Succeeded: resp.Succeeded, Revision: resp.Header.Revision}
	if resp.Succeeded {
		out.KV = s.first(resp.Responses[0].GetResponseDeleteRange().PrevKvs)
	} else {
		out.KV = s.first(resp.Responses[0].GetResponseRange().Kvs)
	}
	return out, nil
}

// putOperation names a put as kube-apiserver does: a put that expects no
// key creates it.
func putOperation(expectedRevision int64) string {
	if expectedRevision == 0 {
		return "create"
	}
	return "update"
}

// Revision implements [storage.Interface] with a linearizable count-only
// range.
func (s *Store) Revision(ctx context.Context) (int64, error) {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	start := time.Now()
	resp, err := s.client.Get(ctx, s.key("/"), clientv3.WithCountOnly())
	s.observe("getCurrentResourceVersion", "", start, err)
	if err != nil {
		return 0, s.error(ctx, err)
	}
	return resp.Header.Revision, nil
}

// Compact implements [storage.Interface] with etcd's Compact, which
// compacts the whole etcd keyspace, not only this store's prefix.
// Compacting at or below an already compacted revision (or at 0 or
// below) does nothing and returns nil; a revision above the current one
// fails with ErrFutureRevision. Compaction is logical as soon as Compact
// returns; etcd frees the space in the background.
func (s *Store) Compact(ctx context.Context, revision int64) error {
	if revision <= 0 {
		return ctx.Err()
	}
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	start := time.Now()
	_, err := s.client.Compact(ctx, revision)
	s.observe("compact", "", start, err)
	if isEtcdError(err, errCompacted) {
		return nil
	}
	return s.error(ctx, err)
}
