package apiserver

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/watch"
)

// watchStream writes one watch response: framed events in the negotiated
// media type, flushed after each batch.
type watchStream struct {
	req     *request
	out     readOutput
	enc     codec.WatchEncoder
	rc      *http.ResponseController
	buf     bytes.Buffer
	pending []byte
	// raw frames JSON events from the stored bytes: no transformation to
	// apply.
	raw bool
	obj []byte
}

// watch serves GET ?watch=true on a collection or object.
func (s *Server) watch(req *request) {
	opts, err := resourceversion.ParseWatch(req.r.URL.Query())
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	sel, err := parseSelectors(req)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	out, err := s.negotiateRead(req, true, true)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	ctx, cancel := context.WithTimeout(req.r.Context(), s.watchTimeout(opts))
	defer cancel()
	w, err := req.res.startWatch(ctx, req, sel, opts)
	if err != nil && status.CodeOf(err) != http.StatusGone {
		s.writeError(req.w, req.r, storageError(err))
		return
	}

	ws := &watchStream{req: req, out: out, enc: out.ser.(codec.WatchEncoder), rc: http.NewResponseController(req.w),
		raw: out.as == "" && out.ser.MediaType() == codec.MediaTypeJSON}
	req.w.Header().Set("Content-Type", ws.enc.StreamMediaType())
	if out.as != "" {
		req.w.Header().Set("Content-Type", out.contentType())
	}
	req.w.Header().Set("Cache-Control", "no-cache, private")
	req.w.WriteHeader(http.StatusOK)
	_ = ws.rc.Flush() // send the headers even when there is nothing yet
	if err != nil {
		// A start revision that has left the window: as kube-apiserver,
		// an ERROR event in a successful response.
		ws.fail(err)
		return
	}
	defer w.Stop()
	ws.stream(ctx, w)
}

// startWatch starts a cache watch as the request asks: with the initial
// state first (rv unset or "0", or sendInitialEvents=true), or from a
// revision.
func (r *resource) startWatch(ctx context.Context, req *request, sel selectors, opts resourceversion.Watch) (*watch.Watcher, error) {
	prefix := r.listPrefix(req.namespace)
	if req.name != "" {
		prefix = r.key(req.namespace, req.name)
		sel.name = ""
	}
	wo := watch.WatchOptions{Bookmarks: opts.AllowBookmarks, InitialEventsEnd: opts.InitialEventsEndBookmark}
	if !sel.empty() {
		wo.Filter = sel.filter(r)
	}
	switch {
	case opts.SendInitialEvents:
		return r.cache.WatchWithInitialState(ctx, prefix, resourceversion.List{Semantics: opts.Semantics, Revision: opts.Revision}, wo)
	case opts.Semantics == resourceversion.MostRecent:
		rev, err := r.cache.Sync(ctx)
		if err != nil {
			return nil, err
		}
		return r.cache.Watch(ctx, prefix, rev, wo)
	}
	return r.cache.Watch(ctx, prefix, opts.Revision, wo)
}

// watchTimeout is the client's timeoutSeconds, or a random duration
// between the minimum request timeout and twice it, so that watches of
// many clients do not all end at once.
func (s *Server) watchTimeout(opts resourceversion.Watch) time.Duration {
	if opts.TimeoutSeconds > 0 {
		return time.Duration(opts.TimeoutSeconds) * time.Second
	}
	min := s.opts.MinRequestTimeout
	return min + time.Duration(rand.Int64N(int64(min)))
}

// stream forwards the watcher's events until the watch ends, flushing
// whenever the watcher has nothing more ready.
func (ws *watchStream) stream(ctx context.Context, w *watch.Watcher) {
	events := w.Events()
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return
		case ev, ok = <-events:
		}
		if !ok {
			ws.end(w.Err())
			return
		}
		if err := ws.event(ev); err != nil {
			ws.fail(err)
			return
		}
		if len(events) == 0 {
			ws.flush()
		}
	}
}

// end reports why the watcher stopped: a Status (410 Expired) as an ERROR
// event; a watcher that fell behind, or a stopped cache, just ends the
// stream, and the client watches again.
func (ws *watchStream) end(err error) {
	var se *status.Error
	if errors.As(err, &se) {
		ws.fail(err)
		return
	}
	ws.flush()
}

// event frames one cache event in the stream's rendering.
func (ws *watchStream) event(ev watch.Event) error {
	typ := ev.Type.String()
	if ev.Type == watch.Bookmark {
		ws.bookmark(ev.Revision, ev.InitialEventsEnd)
		return nil
	}
	if ws.raw {
		var err error
		if ws.obj, err = ws.req.res.appendJSON(ws.obj[:0], ev.Entry.KV); err != nil {
			return err
		}
		ws.pending = ws.enc.AppendEvent(ws.pending, typ, ws.obj)
		return nil
	}
	obj, err := object(ev.Entry)
	if err != nil {
		return err
	}
	return ws.encode(typ, obj)
}

// encode appends one event whose object is rendered as the client asked;
// a Table stream sends each object as a one-row Table.
func (ws *watchStream) encode(typ string, obj any) error {
	v := obj
	if _, isStatus := obj.(*meta.Status); !isStatus && !(typ == meta.Bookmark && ws.out.as == asTable) {
		var err error
		if v, err = ws.out.render(ws.req.res, obj); err != nil {
			return err
		}
	}
	ws.buf.Reset()
	if err := ws.out.ser.Encode(&ws.buf, v); err != nil {
		return err
	}
	ws.pending = ws.enc.AppendEvent(ws.pending, typ, ws.buf.Bytes())
	return nil
}

// bookmark sends a BOOKMARK carrying only the kind, apiVersion and
// resourceVersion; initialEnd marks the end of the initial events.
func (ws *watchStream) bookmark(rev int64, initialEnd bool) {
	obj := ws.req.res.newObject()
	m := obj.GetObjectMeta()
	m.ResourceVersion = strconv.FormatInt(rev, 10)
	if initialEnd {
		m.Annotations = map[string]string{meta.InitialEventsAnnotation: "true"}
	}
	_ = ws.encode(meta.Bookmark, obj)
	ws.flush()
}

// fail ends the stream with an ERROR event carrying a Status.
func (ws *watchStream) fail(err error) {
	st := status.FromError(err)
	_ = ws.encode(meta.Error, &st)
	ws.flush()
}

func (ws *watchStream) flush() {
	if len(ws.pending) == 0 {
		return
	}
	_, _ = ws.req.w.Write(ws.pending)
	ws.pending = ws.pending[:0]
	_ = ws.rc.Flush()
}
