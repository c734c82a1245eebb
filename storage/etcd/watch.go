package etcd

import (
	"context"
	"errors"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kapi-dev/kapi/storage"
)

var (
	errWatchClosed = errors.New("etcd: watch closed by the client")
	errPrevKVGone  = errors.New("etcd: the previous value of a watch event was compacted")
)

// Watch implements [storage.Interface] with an etcd watch on the prefix
// from opts.Revision+1, with previous values and, when asked, progress
// notifications: etcd's own, at the server's
// --watch-progress-notify-interval, and those the store requests every
// [Options.ProgressInterval]. A Revision of 0 first reads the
// current revision, so that the watch starts when Watch is called. A
// Revision in the future is allowed: events come once etcd passes it.
// See the package documentation for compaction.
func (s *Store) Watch(ctx context.Context, prefix string, opts storage.WatchOptions) <-chan storage.WatchResponse {
	ch := make(chan storage.WatchResponse, 1)
	fail := func(err error) <-chan storage.WatchResponse {
		ch <- storage.WatchResponse{Err: err}
		close(ch)
		return ch
	}
	from := opts.Revision
	switch {
	case from < 0:
		return fail(errNegativeRevision)
	case from == 0:
		rev, err := s.Revision(ctx)
		if err != nil {
			if ctx.Err() != nil {
				close(ch)
				return ch
			}
			return fail(err)
		}
		from = rev
	}
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	wopts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithRev(from + 1), clientv3.WithPrevKV()}
	if opts.ProgressNotify {
		wopts = append(wopts, clientv3.WithProgressNotify())
	}
	wch := s.client.Watch(ctx, s.key(prefix), wopts...) // WithPrefix on "" watches every key
	if opts.ProgressNotify {
		s.startProgress()
	}
	go func() {
		defer close(ch)
		defer cancel()
		if opts.ProgressNotify {
			defer s.endProgress()
		}
		s.forward(ctx, wch, ch, opts.ProgressNotify)
	}()
	return ch
}

// RequestProgress asks etcd for a progress notification now: every open
// watch of the store that asked for them (ProgressNotify) receives an
// empty response carrying etcd's current revision. etcd answers only
// when every watch sharing the client's watch stream has caught up with
// the current revision; otherwise the request is dropped, and a later
// one answers. Watches opened with a context carrying gRPC metadata of
// its own use another stream, which this does not reach.
//
// The store sends these requests every [Options.ProgressInterval] while a
// watch with ProgressNotify is open. A watch cache can call it before a
// consistent read, so as not to wait for the next one.
func (s *Store) RequestProgress(ctx context.Context) error {
	ctx, cancel := s.bounded(ctx)
	defer cancel()
	return s.error(ctx, s.client.RequestProgress(clientv3.WithRequireLeader(ctx)))
}

// startProgress counts a watch with ProgressNotify, starting the periodic
// progress requests with the first.
func (s *Store) startProgress() {
	if s.progressInterval <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.progressWatches++; s.progressWatches == 1 {
		s.stopProgress = make(chan struct{})
		go s.requestProgress(s.stopProgress)
	}
}

// endProgress uncounts a watch, stopping the requests after the last.
func (s *Store) endProgress() {
	if s.progressInterval <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.progressWatches--; s.progressWatches == 0 {
		close(s.stopProgress)
		s.stopProgress = nil
	}
}

// requestProgress asks for a progress notification every interval until
// stop is closed. Failures are left for the watches to report.
func (s *Store) requestProgress(stop <-chan struct{}) {
	t := time.NewTicker(s.progressInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), s.progressInterval)
			s.client.RequestProgress(clientv3.WithRequireLeader(ctx))
			cancel()
		}
	}
}

// forward converts etcd's watch responses until the watch ends.
func (s *Store) forward(ctx context.Context, wch clientv3.WatchChan, ch chan<- storage.WatchResponse, progress bool) {
	send := func(resp storage.WatchResponse) bool {
		select {
		case ch <- resp:
			return true
		case <-ctx.Done():
			return false
		}
	}
	fail := func(err error) { send(storage.WatchResponse{Err: err}) }
	for {
		var wr clientv3.WatchResponse
		var ok bool
		select {
		case wr, ok = <-wch:
		case <-ctx.Done():
			return
		}
		switch {
		case ctx.Err() != nil:
			return
		case !ok:
			fail(&storage.Error{Code: storage.ErrUnavailable, Err: errWatchClosed})
			return
		case wr.CompactRevision != 0:
			fail(&storage.Error{Code: storage.ErrCompacted, Revision: wr.CompactRevision, Err: wr.Err()})
			return
		case wr.Err() != nil:
			err := s.error(ctx, wr.Err())
			var se *storage.Error
			if !errors.As(err, &se) {
				err = &storage.Error{Code: storage.ErrUnavailable, Err: err}
			}
			fail(err)
			return
		case wr.IsProgressNotify():
			// Requested progress is broadcast to every watch of the
			// stream: pass it on only to those that asked.
			if progress && !send(storage.WatchResponse{Revision: wr.Header.Revision}) {
				return
			}
			continue
		case len(wr.Events) == 0:
			continue // a creation notice
		}
		resp := storage.WatchResponse{Events: make([]storage.Event, 0, len(wr.Events))}
		for _, ev := range wr.Events {
			e, complete := s.event(ev)
			if !complete {
				// etcd could not read the previous value: it was
				// compacted under the watch.
				if len(resp.Events) > 0 && !send(resp) {
					return
				}
				rev, err := s.compactRevision(ctx)
				if err != nil {
					// The previous value, at ModRevision-1, is below
					// the compact revision.
					rev = ev.Kv.ModRevision
				}
				fail(&storage.Error{Code: storage.ErrCompacted, Revision: rev, Err: errPrevKVGone})
				return
			}
			resp.Events = append(resp.Events, e)
			resp.Revision = e.KV.ModRevision
		}
		if !send(resp) {
			return
		}
	}
}

// event converts an etcd event. It reports false when the event lacks a
// previous value it must have: an update or a delete whose previous value
// etcd could no longer read.
func (s *Store) event(ev *clientv3.Event) (storage.Event, bool) {
	var prev *storage.KeyValue
	if ev.PrevKv != nil {
		prev = s.kv(ev.PrevKv)
	}
	if ev.Type == clientv3.EventTypeDelete {
		kv := &storage.KeyValue{Key: s.kv(ev.Kv).Key, ModRevision: ev.Kv.ModRevision}
		return storage.Event{Type: storage.EventDelete, KV: kv, PrevKV: prev}, prev != nil
	}
	kv := s.kv(ev.Kv)
	return storage.Event{Type: storage.EventPut, KV: kv, PrevKV: prev}, prev != nil || ev.IsCreate()
}
