package handlers

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/splice"
	"github.com/kapi-dev/kapi/apiserver/internal/tables"
	"github.com/kapi-dev/kapi/apiserver/observe"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/watch"
)

// flushSpacing is the least time between two flushes of a watch stream
// that has more events ready. Measured with BenchmarkWatchFanOut at 500
// updates/s: 20 ms gave 1 and 100 watchers a p50 delay of 12 ms, 3 ms gives
// 3 ms, and 1,000 watchers fare the same with either (p99 ~340 ms on 2
// cores); flushing after every event (0) cost them p99 and throughput.
const flushSpacing = 3 * time.Millisecond

// maxPending is how many bytes of framed events a stream gathers before
// writing them, so that a watcher catching up writes in large pieces while
// its memory stays bounded. Measured with BenchmarkWatchFanOut's 1,000
// watchers on a busy machine: 32 KiB cut the batches of a stream that fell
// behind at about 13 events and took twice the writes of 128 KiB.
const maxPending = 128 << 10

// watchStream writes one watch response: framed events in the negotiated
// media type, flushed after each batch.
//
// Each change's framed bytes are made once per rendering and shared by
// every stream that sends the change (watch.Event.Encoded): the stream
// that needs them first encodes, the others copy. JSON streams of the
// stored objects have nothing to encode: each frames the stored bytes
// itself (appendSpliced). A stream whose peer
// takes nothing for the cache's stall timeout is cut: its writes carry a
// deadline, as the cache closes a watcher whose consumer stalls.
type watchStream struct {
	ctx context.Context // the watch's
	// ready is closed when the header is out and conn is set: the
	// watcher's goroutine, which writes the events, waits for it.
	ready  chan struct{}
	opened bool // ready was seen closed
	failed bool // an ERROR event ended the stream
	req    *Request
	r      *registry.Resource
	out    ReadOutput
	enc    codec.WatchEncoder
	rc     *http.ResponseController
	buf    bytes.Buffer
	bufs   *watchBuffers // the server's, which pending comes from
	// pending holds the events gathered for the next write: a buffer
	// from bufs while there are some, nil between writes.
	pending []byte
	// raw frames JSON events from the stored bytes: no transformation to
	// apply.
	raw bool
	obj []byte
	// key names the stream's rendering (media type, transformation,
	// includeObject) among the encodings a change keeps.
	key string
	// cur is the event encodeCur frames; encodeFn is encodeCur, bound
	// once so that sharing costs no allocation per event.
	cur      watch.Event
	encodeFn func() ([]byte, error)

	stall    time.Duration // a write may block this long at most
	deadline time.Time     // the write deadline set; zero: none
	noLimit  bool          // the connection takes no write deadline
	// conn is the connection the stream writes its chunks on, taken
	// from net/http (see watchconn.go); nil: through the ResponseWriter.
	conn *streamConn

	observer observe.Observer // nil: none
}

// watch serves GET ?watch=true on a collection or object.
func (h *Handler) watch(req *Request) {
	opts, err := resourceversion.ParseWatch(requestinfo.Query(req.Request))
	if err != nil {
		h.fail(req, err)
		return
	}
	sel, err := h.parseSelectors(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	out, err := h.negotiateRead(req, true, true)
	if err != nil {
		h.fail(req, err)
		return
	}
	ctx, cancel := context.WithTimeout(req.Request.Context(), h.watchTimeout(opts))
	defer cancel()
	ws := h.newWatchStream(ctx, req, out)
	var sink watch.Sink
	if ws.takesConn() {
		sink = ws
	}
	w, err := startWatch(h.Resource, ctx, req, sel, opts, sink)
	if err != nil && status.CodeOf(err) != http.StatusGone {
		h.fail(req, registry.StorageError(err))
		return
	}

	defer ws.clearDeadline()
	// The stream's media type, also for Tables and partial metadata, as
	// kube-apiserver names it.
	req.Writer.Header().Set("Content-Type", ws.enc.StreamMediaType())
	req.Writer.Header().Set("Cache-Control", "no-cache, private")
	if sink != nil && err == nil {
		// The stream will take the connection and close it at its end,
		// when net/http can no longer serve another request on it: the
		// client must not keep it for one (Go's Transport would, and its
		// next request would fail with "server closed idle connection").
		req.Writer.Header().Set("Connection", "close")
	}
	req.Writer.WriteHeader(http.StatusOK)
	_ = ws.rc.Flush() // send the headers even when there is nothing yet
	if err != nil {
		// A start revision that has left the window: as kube-apiserver,
		// an ERROR event in a successful response.
		ws.fail(err)
		return
	}
	taken := sink != nil && ws.takeConn(cancel)
	if sink != nil {
		ws.stream(w)
	} else {
		ws.forward(ctx, w)
	}
	if taken {
		ws.conn.close()
	}
}

func (h *Handler) newWatchStream(ctx context.Context, req *Request, out ReadOutput) *watchStream {
	ws := &watchStream{ctx: ctx, ready: make(chan struct{}), req: req, r: h.Resource, out: out, enc: out.Serializer.(codec.WatchEncoder), rc: http.NewResponseController(req.Writer),
		raw:   out.As == "" && out.Serializer.MediaType() == codec.MediaTypeJSON,
		key:   h.Resource.VersionKey(out.key()),
		stall: h.WatchStallTimeout, observer: h.Observer, bufs: &h.watchBufs}
	if ws.stall <= 0 {
		ws.stall = watch.DefaultStallTimeout
	}
	ws.encodeFn = ws.encodeCur
	return ws
}

// startWatch starts a cache watch as the request asks: with the initial
// state first (rv unset or "0", or sendInitialEvents=true), or from a
// revision.
func startWatch(r *registry.Resource, ctx context.Context, req *Request, sel Selectors, opts resourceversion.Watch, sink watch.Sink) (*watch.Watcher, error) {
	prefix := r.ListPrefix(req.Namespace)
	if req.Name != "" {
		prefix = r.Key(req.Namespace, req.Name)
		sel.name = ""
	}
	wo := watch.WatchOptions{Bookmarks: opts.AllowBookmarks, InitialEventsEnd: opts.InitialEventsEndBookmark,
		Sink: sink, Spacing: flushSpacing}
	if !sel.empty() {
		wo.Filter = sel.filter(r)
	}
	switch {
	case opts.SendInitialEvents:
		return r.Cache.WatchWithInitialState(ctx, prefix, resourceversion.List{Semantics: opts.Semantics, Revision: opts.Revision}, wo)
	case opts.Semantics == resourceversion.MostRecent:
		rev, err := r.Cache.Sync(ctx)
		if err != nil {
			return nil, err
		}
		return r.Cache.Watch(ctx, prefix, rev, wo)
	}
	return r.Cache.Watch(ctx, prefix, opts.Revision, wo)
}

// watchTimeout is the client's timeoutSeconds, or a random duration
// between the minimum request timeout and twice it, so that watches of
// many clients do not all end at once.
func (s *Core) watchTimeout(opts resourceversion.Watch) time.Duration {
	if opts.TimeoutSeconds > 0 {
		return time.Duration(opts.TimeoutSeconds) * time.Second
	}
	min := s.MinWatchTimeout
	return min + time.Duration(rand.Int64N(int64(min)))
}

// A watch stream that can bound its writes with a deadline (one on a
// connection net/http hands over, see watchconn.go) is its watcher's Sink:
// the watcher's goroutine writes the events, and a batch costs no
// hand-off between two goroutines. Other streams (HTTP/2, writers that
// are not net/http's) take the events from the watcher's channel, which
// the cache ends when its consumer stalls. Either way the watcher
// delivers when it has caught up, but at most once per flushSpacing (its
// Spacing): an event after a quiet spell goes out at once, while during a
// burst each write carries several events, which saves the server and the
// client a system call and a wake-up per event. A watcher of a resource
// with many watchers delivers its changes in batches (see watch.Cache),
// so each of its batches is one write.

// stream lets the watcher's goroutine write the events once the
// response's header is out, waits for the watch to end, and ends the
// stream.
func (ws *watchStream) stream(w *watch.Watcher) {
	close(ws.ready)
	for range w.Events() { // a Sink's watcher sends nothing; it closes
	}
	ws.end(w.Err())
}

// forward writes the events of the watcher's channel until the watch
// ends, each batch the watcher delivered in one write.
func (ws *watchStream) forward(ctx context.Context, w *watch.Watcher) {
	events := w.Events()
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			ws.flush() // the events already taken go out before the stream ends
			return
		case ev, ok = <-events:
		}
		if !ok {
			ws.end(w.Err())
			return
		}
		closed, err := ws.gather(ev, events)
		if err != nil {
			ws.fail(err)
			return
		}
		if closed {
			ws.end(w.Err())
			return
		}
		if ws.flush() != nil {
			return // the peer is gone or took nothing for too long
		}
		if len(events) == 0 {
			ws.clearDeadline() // quiet until the next event
		}
	}
}

// gather adds ev and then the events already waiting in the channel to
// the pending bytes, up to maxPending, without blocking: a watcher
// delivers the changes that came while it lingered together, and they
// go out in one write. It reports whether the channel was closed.
func (ws *watchStream) gather(ev watch.Event, events <-chan watch.Event) (closed bool, err error) {
	for {
		if err := ws.event(ev); err != nil {
			return false, err
		}
		if len(ws.pending) >= maxPending {
			return false, nil
		}
		var ok bool
		select {
		case ev, ok = <-events:
			if !ok {
				return true, nil
			}
		default:
			return false, nil
		}
	}
}

// Send takes one event for the next write, and writes when a batch's
// worth is pending. It is called on the watcher's goroutine, which
// stream waits for.
func (ws *watchStream) Send(ev watch.Event) error {
	if err := ws.open(); err != nil {
		return err
	}
	if err := ws.event(ev); err != nil {
		ws.fail(err) // an ERROR event; the watch ends
		ws.failed = true
		return err
	}
	if len(ws.pending) >= maxPending {
		return stalled(ws.flush())
	}
	return nil
}

// Flush writes the pending events: the watcher has caught up.
func (ws *watchStream) Flush() error {
	if err := ws.open(); err != nil {
		return err
	}
	return stalled(ws.flush())
}

// stalled reports a write that hit its deadline (the peer took nothing
// for the stall timeout) as the watch's consumer being too slow, as the
// cache reports a consumer that stalls on its channel.
func stalled(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return watch.ErrTooSlow
	}
	return err
}

// open waits, on the watcher's goroutine, until the response's header
// is out and the stream knows where it writes.
func (ws *watchStream) open() error {
	if ws.opened {
		return nil
	}
	select {
	case <-ws.ready:
		ws.opened = true
		return nil
	case <-ws.ctx.Done():
		return ws.ctx.Err()
	}
}

// end reports why the watcher stopped: a Status (410 Expired) as an ERROR
// event; a watcher that fell behind, or a stopped cache, just ends the
// stream, and the client watches again.
func (ws *watchStream) end(err error) {
	if ws.failed {
		return
	}
	var se *status.Error
	if errors.As(err, &se) {
		ws.fail(err)
		return
	}
	ws.flush()
}

// event adds one cache event, framed in the stream's rendering, to the
// pending bytes.
func (ws *watchStream) event(ev watch.Event) error {
	if ev.Type == watch.Bookmark {
		ws.bookmark(ev.Revision, ev.InitialEventsEnd)
		return nil
	}
	size, ok := ws.appendSpliced(ev)
	if !ok {
		frame, err := ws.frame(ev)
		if err != nil {
			return err
		}
		ws.startPending()
		ws.pending = append(ws.pending, frame...)
		size = len(frame)
		ws.tableEventSent()
	}
	if o := ws.observer; o != nil {
		k := &ws.r.Kind
		o.ObserveWatchEvent(k.Group, k.Version, k.Resource, size)
	}
	return nil
}

// tableEventSent notes that a Table stream sent an event: the column
// definitions go with its first only, as kube-apiserver sends them, so
// later events are rendered, and shared between streams, without.
func (ws *watchStream) tableEventSent() {
	if ws.out.As == tables.AsTable && !ws.out.noHeaders {
		ws.out.noHeaders = true
		ws.key += ";noHeaders"
	}
}

// appendSpliced appends the event of a raw stream framed straight from
// the stored bytes, with the revision spliced in, and returns its size and
// whether it could. Such an event is not shared between streams (watch.Event.Encoded):
// splicing costs each stream what copying a shared frame would, and a
// shared frame was a copy of the whole object kept for seconds after the
// change, the same size as the stored value, which left the pages of
// stored values half empty once frames were let go (about 0.4 KB a
// stored Widget after a burst of writes, BenchmarkMemoryPerWidget).
func (ws *watchStream) appendSpliced(ev watch.Event) (size int, ok bool) {
	if !ws.raw {
		return 0, false
	}
	at := ws.r.Splices.At(ws.r, ev.Entry.KV)
	if at < 0 {
		return 0, false // encoded once per version, and shared
	}
	ws.startPending()
	n := len(ws.pending)
	if _, ok := ws.enc.(codec.JSON); ok {
		ws.pending = AppendJSONEvent(ws.pending, ev.Type.String(), ev.Entry.KV, at)
	} else { // a host's own JSON serializer frames its events
		ws.obj = registry.AppendSpliced(ws.obj[:0], ev.Entry.KV, at)
		ws.pending = ws.enc.AppendEvent(ws.pending, ev.Type.String(), ws.obj)
	}
	return len(ws.pending) - n, true
}

// AppendJSONEvent appends what codec.JSON's AppendEvent frames for a
// stored value whose resourceVersion placeholder is at at, spliced
// straight into dst rather than through a copy of the object.
func AppendJSONEvent(dst []byte, typ string, kv *storage.KeyValue, at int) []byte {
	dst = append(dst, `{"type":"`...)
	dst = append(dst, typ...)
	dst = append(dst, `","object":`...)
	dst = append(dst, kv.Value[:at]...)
	dst = splice.AppendRVField(dst, kv.ModRevision)
	head, mf, tail := registry.SplitShared(kv, kv.Value[at+len(registry.RvMarker):])
	if mf != "" {
		dst = append(append(dst, head...), mf...)
		head = tail
	}
	dst = append(dst, bytes.TrimRight(head, "\n")...)
	return append(dst, "}\n"...)
}

// frame frames ev in the stream's rendering: the encoding shared by the
// streams with this rendering, but for a Table stream's first event,
// which alone carries the column definitions (see headersSent).
func (ws *watchStream) frame(ev watch.Event) ([]byte, error) {
	ws.cur = ev
	defer func() { ws.cur = watch.Event{} }()
	if ws.headersSent() {
		return ev.Encoded(ws.key, ws.encodeFn)
	}
	return ws.encodeFn()
}

// encodeCur frames ws.cur into new bytes, which may be shared with other
// streams: nothing of the stream's own buffers is kept in them.
func (ws *watchStream) encodeCur() ([]byte, error) {
	ev := &ws.cur
	typ := ev.Type.String()
	var obj []byte
	if ws.raw {
		var err error
		if ws.obj, err = ws.r.AppendJSON(ws.obj[:0], ev.Entry.KV); err != nil {
			return nil, err
		}
		obj = ws.obj
	} else {
		o, err := ws.r.Object(ev.Entry)
		if err != nil {
			return nil, err
		}
		if err := ws.render(typ, o); err != nil {
			return nil, err
		}
		obj = ws.buf.Bytes()
	}
	return ws.enc.AppendEvent(make([]byte, 0, len(obj)+32), typ, obj), nil
}

// encode appends one event whose object is rendered as the client asked.
func (ws *watchStream) encode(typ string, obj any) error {
	if err := ws.render(typ, obj); err != nil {
		return err
	}
	ws.startPending()
	ws.pending = ws.enc.AppendEvent(ws.pending, typ, ws.buf.Bytes())
	return nil
}

// render encodes obj, rendered as the client asked, into ws.buf; a Table
// stream sends each object as a one-row Table, the column definitions in
// its first event only.
func (ws *watchStream) render(typ string, obj any) error {
	v := obj
	var err error
	switch o := obj.(type) {
	case *meta.Status:
	case *BookmarkObject:
		v, err = ws.renderBookmark(o)
	default:
		v, err = ws.out.Render(ws.r, obj)
	}
	if err != nil {
		return err
	}
	ws.out.noHeaders = true
	ws.buf.Reset()
	return ws.out.Serializer.Encode(&ws.buf, v)
}

// bookmark sends a BOOKMARK carrying only the kind, apiVersion and
// resourceVersion; initialEnd marks the end of the initial events.
func (ws *watchStream) bookmark(rev int64, initialEnd bool) {
	r := ws.r
	obj := &BookmarkObject{TypeMeta: meta.TypeMeta{Kind: r.Kind.Kind, APIVersion: r.APIVersion}}
	obj.ResourceVersion = strconv.FormatInt(rev, 10)
	if initialEnd {
		obj.Annotations = map[string]string{meta.InitialEventsAnnotation: "true"}
	}
	_ = ws.encode(meta.Bookmark, obj)
	ws.flush()
}

// BookmarkObject is the object of a BOOKMARK: the watched kind's type and
// metadata with the resourceVersion (and the initial-events-end
// annotation), and nothing else, as kube-apiserver sends it for custom
// resources: no empty spec or status.
type BookmarkObject struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
}

// fail ends the stream with an ERROR event carrying a Status.
func (ws *watchStream) fail(err error) {
	st := status.FromError(err)
	_ = ws.encode(meta.Error, &st)
	ws.flush()
}

// flush writes the pending bytes and flushes them to the peer, and gives
// their buffer back: a stream holds one only from its first event to the
// write, so the server's streams share a few large buffers instead of
// each keeping one. The write fails when the peer took nothing for the
// stall timeout.
func (ws *watchStream) flush() error {
	if len(ws.pending) <= ws.room() {
		return nil
	}
	ws.armDeadline()
	var err error
	if ws.conn != nil {
		err = ws.conn.writeChunk(ws.pending)
	} else {
		_, err = ws.req.Writer.Write(ws.pending)
	}
	ws.bufs.put(ws.pending)
	ws.pending = nil
	if err != nil {
		return err
	}
	if ws.conn != nil {
		return nil
	}
	return ws.rc.Flush()
}

// startPending gives the stream a buffer for its next batch, if it has
// none, with room in front for the chunk header when it writes on the
// connection.
func (ws *watchStream) startPending() {
	if ws.pending == nil {
		ws.pending = append(ws.bufs.get(), make([]byte, ws.room())...)
	}
}

// armDeadline lets the coming write block for between three quarters of
// the stall timeout and all of it. The deadline is moved only when a
// quarter of it has passed, so a busy stream does not pay for it on every
// write.
func (ws *watchStream) armDeadline() {
	if ws.noLimit {
		return
	}
	now := time.Now()
	if ws.deadline.Sub(now) > ws.stall*3/4 {
		return
	}
	ws.deadline = now.Add(ws.stall)
	if ws.conn != nil {
		_ = ws.conn.conn.SetWriteDeadline(ws.deadline)
		return
	}
	if ws.rc.SetWriteDeadline(ws.deadline) != nil {
		ws.noLimit = true // not a connection; nothing to protect
	}
}

// clearDeadline removes the write deadline of a stream on the
// ResponseWriter when it waits for events and when it ends. A deadline
// bounds a write, not the quiet between two: on HTTP/2 it is a timer
// that resets the stream when it fires, write or no write, so one left
// from the last write cut a watch that saw no event for the stall
// timeout (client-go's "watch closed unexpectedly" after 10 s over TLS);
// and the next request on a kept-alive HTTP/1.1 connection must not be
// cut by it. (A connection the stream took keeps its deadline: on a
// net.Conn it only bounds writes, and armDeadline moves one that passed
// before the next.)
func (ws *watchStream) clearDeadline() {
	if !ws.deadline.IsZero() && !ws.noLimit && ws.conn == nil {
		_ = ws.rc.SetWriteDeadline(time.Time{})
		ws.deadline = time.Time{}
	}
}

// watchBuffers pools the buffers of watch streams' pending events.
type watchBuffers struct{ pool sync.Pool }

// get returns an empty buffer, with room for a batch when the pool has
// one.
func (b *watchBuffers) get() []byte {
	if p, ok := b.pool.Get().(*[]byte); ok {
		return (*p)[:0]
	}
	return make([]byte, 0, 16<<10)
}

// put gives buf back for another stream; a buffer that grew past
// maxPending (one large event) is dropped.
func (b *watchBuffers) put(buf []byte) {
	if cap(buf) > 2*maxPending {
		return
	}
	b.pool.Put(&buf)
}
