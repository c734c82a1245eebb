package apiserver

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// watchStream writes one watch response: framed events in the negotiated
// media type, flushed one by one.
type watchStream struct {
	req     *request
	out     readOutput
	enc     codec.WatchEncoder
	rc      *http.ResponseController
	sel     selectors
	buf     bytes.Buffer
	pending []byte
	// raw streams JSON events from the stored bytes: no selectors to
	// evaluate and no transformation to apply.
	raw bool
	obj []byte
	// start is the revision the watch began after, for error messages.
	start int64
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
	r := req.res
	prefix := r.listPrefix(req.namespace)

	var initial []meta.Object
	start := opts.Revision
	if opts.SendInitialEvents {
		lopts := resourceversion.List{Semantics: resourceversion.MostRecent}
		if opts.Semantics == resourceversion.NotOlderThan {
			lopts = resourceversion.List{Semantics: resourceversion.NotOlderThan, Revision: opts.Revision}
		}
		p, err := s.listPage(ctx, r, req.namespace, sel, lopts)
		if err != nil {
			s.writeError(req.w, req.r, err)
			return
		}
		list, err := p.list(r)
		if err != nil {
			s.writeError(req.w, req.r, err)
			return
		}
		initial = list.Items
		start, _ = strconv.ParseInt(list.ResourceVersion, 10, 64)
	} else if start == 0 {
		if start, err = r.store.Revision(ctx); err != nil {
			s.writeError(req.w, req.r, storageError(err))
			return
		}
	}
	events := r.store.Watch(ctx, prefix, storage.WatchOptions{Revision: start, ProgressNotify: opts.AllowBookmarks})

	ws := &watchStream{req: req, out: out, enc: out.ser.(codec.WatchEncoder), rc: http.NewResponseController(req.w), sel: sel,
		raw: sel.empty() && out.as == "" && out.ser.MediaType() == codec.MediaTypeJSON, start: start}
	req.w.Header().Set("Content-Type", ws.enc.StreamMediaType())
	if out.as != "" {
		req.w.Header().Set("Content-Type", out.contentType())
	}
	req.w.Header().Set("Cache-Control", "no-cache, private")
	req.w.WriteHeader(http.StatusOK)
	for _, obj := range initial {
		ws.event(meta.Added, obj)
	}
	if opts.InitialEventsEndBookmark {
		ws.bookmark(start, true)
	}
	ws.flush()
	_ = ws.rc.Flush() // send the headers even when there is nothing yet
	ws.stream(ctx, events, opts.AllowBookmarks)
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

// stream forwards storage events until the watch ends.
func (ws *watchStream) stream(ctx context.Context, events <-chan storage.WatchResponse, bookmarks bool) {
	for {
		select {
		case <-ctx.Done():
			return
		case resp, ok := <-events:
			if !ok {
				return
			}
			if resp.Err != nil {
				ws.fail(resp.Err)
				return
			}
			if len(resp.Events) == 0 {
				if bookmarks && resp.Revision > 0 {
					ws.bookmark(resp.Revision, false)
				}
			}
			for _, e := range resp.Events {
				if err := ws.storageEvent(e); err != nil {
					ws.fail(err)
					return
				}
			}
			ws.flush()
		}
	}
}

// storageEvent turns one storage event into a watch event, as the
// selectors see it: an object that starts matching is ADDED and one that
// stops matching is DELETED.
func (ws *watchStream) storageEvent(e storage.Event) error {
	r := ws.req.res
	if ws.raw {
		return ws.rawEvent(e)
	}
	var cur, prev meta.Object
	var err error
	if e.Type == storage.EventPut {
		if cur, err = r.decode(e.KV); err != nil {
			return err
		}
	}
	if e.PrevKV != nil {
		if prev, err = r.decode(e.PrevKV); err != nil {
			return err
		}
		prev.GetObjectMeta().ResourceVersion = strconv.FormatInt(e.KV.ModRevision, 10)
	}
	curMatch := cur != nil && ws.sel.matches(r, cur)
	prevMatch := prev != nil && ws.sel.matches(r, prev)
	switch {
	case curMatch && prevMatch:
		ws.event(meta.Modified, cur)
	case curMatch:
		ws.event(meta.Added, cur)
	case prevMatch:
		ws.event(meta.Deleted, prev)
	}
	return nil
}

// event encodes one event in the stream's rendering; a Table stream sends
// each object as a one-row Table.
func (ws *watchStream) event(typ string, obj any) {
	v := obj
	if _, isStatus := obj.(*meta.Status); !isStatus && !(typ == meta.Bookmark && ws.out.as == asTable) {
		var err error
		if v, err = ws.out.render(ws.req.res, obj); err != nil {
			return
		}
	}
	ws.buf.Reset()
	if err := ws.out.ser.Encode(&ws.buf, v); err != nil {
		return
	}
	ws.pending = ws.enc.AppendEvent(ws.pending, typ, ws.buf.Bytes())
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
	ws.event(meta.Bookmark, obj)
	ws.flush()
}

// fail ends the stream with an ERROR event carrying a Status.
func (ws *watchStream) fail(err error) {
	var st meta.Status
	if storage.IsCompacted(err) {
		var se *storage.Error
		_ = asStorageError(err, &se)
		st = status.Expired(fmt.Sprintf("too old resource version: %d (%d)", ws.start, se.Revision+1)).Status
	} else {
		st = status.FromError(err)
	}
	ws.event(meta.Error, &st)
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

// rawEvent frames a storage event from the stored bytes. A deleted
// object carries the revision of its deletion, as kube-apiserver sends it.
func (ws *watchStream) rawEvent(e storage.Event) error {
	kv, typ := e.KV, meta.Modified
	switch {
	case e.Type == storage.EventDelete:
		if e.PrevKV == nil {
			return nil
		}
		gone := *e.PrevKV
		gone.ModRevision = e.KV.ModRevision
		kv, typ = &gone, meta.Deleted
	case e.IsCreate():
		typ = meta.Added
	}
	var err error
	if ws.obj, err = ws.req.res.appendJSON(ws.obj[:0], kv); err != nil {
		return err
	}
	ws.pending = ws.enc.AppendEvent(ws.pending, typ, ws.obj)
	return nil
}
