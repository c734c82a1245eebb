package storagetest

import (
	"context"
	"fmt"
	"time"

	"github.com/kapi-dev/kapi/storage"
)

// want is an expected event.
type want struct {
	typ  storage.EventType
	kv   *storage.KeyValue // for a delete, only Key and ModRevision count
	prev *storage.KeyValue
}

func put(kv, prev *storage.KeyValue) want { return want{storage.EventPut, kv, prev} }

func del(key string, rev int64, prev *storage.KeyValue) want {
	return want{storage.EventDelete, &storage.KeyValue{Key: key, ModRevision: rev}, prev}
}

// collect reads responses from ch until it has n events, checking that
// events come in revision order and that no response claims a revision
// below its events.
func (h *harness) collect(ch <-chan storage.WatchResponse, n int) []storage.Event {
	h.Helper()
	var evs []storage.Event
	timeout := time.After(h.opts.Timeout)
	for len(evs) < n {
		select {
		case resp, ok := <-ch:
			if !ok {
				h.Fatalf("watch closed after %d of %d events", len(evs), n)
			}
			if resp.Err != nil {
				h.Fatalf("watch failed after %d of %d events: %v", len(evs), n, resp.Err)
			}
			for _, ev := range resp.Events {
				if len(evs) > 0 && ev.KV.ModRevision <= evs[len(evs)-1].KV.ModRevision {
					h.Fatalf("event at %d after one at %d", ev.KV.ModRevision, evs[len(evs)-1].KV.ModRevision)
				}
				if ev.KV.ModRevision > resp.Revision {
					h.Fatalf("response at revision %d carries an event at %d", resp.Revision, ev.KV.ModRevision)
				}
				evs = append(evs, ev)
			}
		case <-timeout:
			h.Fatalf("timed out after %d of %d events", len(evs), n)
		}
	}
	return evs
}

// expect reads len(wants) events from ch and compares them.
func (h *harness) expect(ch <-chan storage.WatchResponse, wants ...want) {
	h.Helper()
	evs := h.collect(ch, len(wants))
	for i, ev := range evs {
		w := wants[i]
		what := fmt.Sprintf("event %d", i)
		if ev.Type != w.typ {
			h.Fatalf("%s: type %d, want %d", what, ev.Type, w.typ)
		}
		if w.typ == storage.EventDelete {
			if ev.KV == nil || ev.KV.Key != w.kv.Key || ev.KV.ModRevision != w.kv.ModRevision {
				h.Fatalf("%s: delete %s, want key %q at %d", what, fmtKV(ev.KV), w.kv.Key, w.kv.ModRevision)
			}
		} else {
			h.wantKV(what, ev.KV, w.kv)
		}
		h.wantKV(what+" PrevKV", ev.PrevKV, w.prev)
		if ev.IsCreate() != (w.typ == storage.EventPut && w.prev == nil) {
			h.Fatalf("%s: IsCreate() = %v", what, ev.IsCreate())
		}
	}
}

// quiet fails if ch delivers an event or closes within a short while.
func (h *harness) quiet(ch <-chan storage.WatchResponse) {
	h.Helper()
	timeout := time.After(200 * time.Millisecond)
	for {
		select {
		case resp, ok := <-ch:
			if !ok || resp.Err != nil || len(resp.Events) > 0 {
				h.Fatalf("unexpected watch response (open %v): %+v", ok, resp)
			}
		case <-timeout:
			return
		}
	}
}

// closed fails unless ch closes in time, skipping what it still delivers,
// and returns the last error seen.
func (h *harness) closed(ch <-chan storage.WatchResponse) error {
	h.Helper()
	var err error
	timeout := time.After(h.opts.Timeout)
	for {
		select {
		case resp, ok := <-ch:
			if !ok {
				return err
			}
			if resp.Err != nil {
				err = resp.Err
			}
		case <-timeout:
			h.Fatalf("watch channel not closed")
		}
	}
}

func (h *harness) watch(prefix string, opts storage.WatchOptions) (<-chan storage.WatchResponse, context.CancelFunc) {
	ctx, cancel := context.WithCancel(h.ctx)
	h.Cleanup(cancel)
	return h.s.Watch(ctx, prefix, opts), cancel
}

func testWatchFromNow(h *harness) {
	h.create("/w/old", "before the watch")
	ch, _ := h.watch("/w/", storage.WatchOptions{})
	v1 := h.create("/w/a", "one")
	v2 := h.mustPut("/w/a", "two", v1.ModRevision)
	d := h.mustDelete("/w/a", v2.ModRevision)
	v3 := h.create("/w/a", "three")
	h.expect(ch, put(v1, nil), put(v2, v1), del("/w/a", d, v2), put(v3, nil))
	h.quiet(ch)
}

func testWatchFromRevision(h *harness) {
	v1 := h.create("/w/a", "one")
	b := h.create("/w/b", "b")
	v2 := h.mustPut("/w/a", "two", v1.ModRevision)
	d := h.mustDelete("/w/b", b.ModRevision)
	ch, _ := h.watch("/w/", storage.WatchOptions{Revision: v1.ModRevision})
	h.expect(ch, put(b, nil), put(v2, v1), del("/w/b", d, b))
	v3 := h.mustPut("/w/a", "three", v2.ModRevision)
	h.expect(ch, put(v3, v2))
	h.quiet(ch)

	// Watching from the current revision delivers only later changes.
	ch, _ = h.watch("/w/", storage.WatchOptions{Revision: v3.ModRevision})
	h.quiet(ch)
	v4 := h.mustPut("/w/a", "four", v3.ModRevision)
	h.expect(ch, put(v4, v3))
}

func testWatchPrefixIsolation(h *harness) {
	start := h.revision()
	ch, _ := h.watch("/a/", storage.WatchOptions{})
	past, _ := h.watch("/a/", storage.WatchOptions{Revision: start})
	h.create("/ab/x", "other")
	h.create("/a", "other")
	h.create("/b/x", "other")
	kv := h.create("/a/x", "mine")
	h.create("/aa", "other")
	h.expect(ch, put(kv, nil))
	h.expect(past, put(kv, nil))
	h.quiet(ch)
	h.quiet(past)
}

func testWatchCancel(h *harness) {
	ch, cancel := h.watch("/w/", storage.WatchOptions{})
	kv := h.create("/w/a", "one")
	h.expect(ch, put(kv, nil))
	cancel()
	if err := h.closed(ch); err != nil && err != context.Canceled {
		h.Logf("watch ended with %v after cancel", err)
	}
	// A cancelled watch with undelivered events closes too.
	ch, cancel = h.watch("/w/", storage.WatchOptions{Revision: kv.ModRevision - 1})
	for i := 0; i < 20; i++ {
		kv = h.mustPut("/w/a", fmt.Sprint(i), kv.ModRevision)
	}
	cancel()
	h.closed(ch)
}

func testWatchCompacted(h *harness) {
	kv := h.create("/w/a", "0")
	var revs []int64
	for i := 1; i <= 4; i++ {
		kv = h.mustPut("/w/a", fmt.Sprint(i), kv.ModRevision)
		revs = append(revs, kv.ModRevision)
	}
	mid := revs[1]
	if err := h.s.Compact(h.ctx, mid); err != nil {
		h.Fatalf("Compact(%d): %v", mid, err)
	}
	ch, _ := h.watch("/w/", storage.WatchOptions{Revision: revs[0]})
	select {
	case resp, ok := <-ch:
		if !ok {
			h.Fatalf("watch closed without an error")
		}
		se := h.wantErr("watch from a compacted revision", resp.Err, storage.ErrCompacted)
		if se.Revision < mid {
			h.Fatalf("compacted revision %d, want >= %d", se.Revision, mid)
		}
		if len(resp.Events) > 0 {
			h.Fatalf("the error response carries events")
		}
	case <-time.After(h.opts.Timeout):
		h.Fatalf("no response from a watch at a compacted revision")
	}
	if err := h.closed(ch); err != nil {
		h.Fatalf("more after the error: %v", err)
	}
	// Later revisions can still be watched.
	ch, _ = h.watch("/w/", storage.WatchOptions{Revision: revs[2]})
	prev := h.get("/w/a", revs[2]).KV
	h.expect(ch, put(kv, prev))
}

func testWatchProgress(h *harness) {
	if h.opts.ProgressNotifyInterval <= 0 {
		h.Skip("Options.ProgressNotifyInterval not set")
	}
	ch, _ := h.watch("/idle/", storage.WatchOptions{ProgressNotify: true})
	plain, _ := h.watch("/idle/", storage.WatchOptions{})
	rev := h.create("/busy/a", "x").ModRevision
	deadline := time.After(10*h.opts.ProgressNotifyInterval + h.opts.Timeout)
	for {
		select {
		case resp, ok := <-ch:
			if !ok || resp.Err != nil || len(resp.Events) > 0 {
				h.Fatalf("unexpected response on an idle watch (open %v): %+v", ok, resp)
			}
			if resp.Revision >= rev {
				h.quiet(plain)
				return
			}
		case <-deadline:
			h.Fatalf("no progress notification at or after revision %d", rev)
		}
	}
}
