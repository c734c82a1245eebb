package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/kapi-dev/kapi/apiserver/internal/pipeline"
	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/watch"
)

// deleteCollection serves DELETE on a collection: every object matching
// the selectors is deleted and the list of them returned. The objects are
// read from the cache one at a time; a JSON answer larger than the list
// streaming threshold is streamed as the objects are deleted (see
// streamDeleted), so that deleting many large objects does not hold them,
// or one answer holding them all, in memory.
func (h *Handler) deleteCollection(req *Request) {
	opts, dry, err := h.deleteOptions(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	sel, err := h.parseSelectors(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	// Negotiate before deleting: a 406 must not come after the deletes.
	ser, _, err := h.negotiate(req, &meta.List{})
	if err != nil {
		h.fail(req, err)
		return
	}
	ctx := req.Request.Context()
	p, err := h.ListPage(ctx, req.Namespace, sel, resourceversion.List{Semantics: resourceversion.MostRecent})
	if err != nil {
		h.fail(req, err)
		return
	}
	head := &meta.List{TypeMeta: meta.TypeMeta{Kind: h.Resource.ListKind, APIVersion: h.Resource.APIVersion},
		ListMeta: meta.ListMeta{ResourceVersion: p.meta.ResourceVersion}, Items: []meta.Object{}}
	w := h.newWrite(req, pipeline.Write{DryRun: dry, DeleteOptions: &opts})
	if ser.MediaType() == codec.MediaTypeJSON && storedSize(p.Entries) > responsewriters.StreamThreshold {
		h.streamDeleted(req, w, head, p.Entries)
		return
	}
	err = h.deleteEach(ctx, w, p.Entries, func(out meta.Object) error {
		head.Items = append(head.Items, out)
		return nil
	})
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeEncoded(req, http.StatusOK, ser, ser.MediaType(), head)
}

// storedSize is the bytes the entries' stored values take.
func storedSize(entries []*watch.Entry) int {
	n := 0
	for _, e := range entries {
		n += len(e.KV.Value)
	}
	return n
}

// deleteEach deletes the objects of entries, decoding one at a time, and
// hands each deleted (or marked) object to emit. Objects already gone are
// skipped.
func (h *Handler) deleteEach(ctx context.Context, w *pipeline.Write, entries []*watch.Entry, emit func(meta.Object) error) error {
	for _, e := range entries {
		obj, err := h.Resource.Decode(e.KV)
		if err != nil {
			return status.InternalError(err)
		}
		m := obj.GetObjectMeta()
		out, _, err := w.Delete(ctx, m.Namespace, m.Name, *w.DeleteOptions)
		if status.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		if err := emit(out); err != nil {
			return err
		}
	}
	return nil
}

// streamDeleted writes the JSON list of the deleted objects as they are
// deleted: the same bytes as the whole list encoded at once, sent in
// chunks (gzipped when the client accepts it). Until the first object is
// written a failure is an ordinary Status; after it, the response can
// only be cut short, so the connection is aborted and the client sees an
// incomplete answer rather than a list that looks whole.
func (h *Handler) streamDeleted(req *Request, w *pipeline.Write, head *meta.List, entries []*watch.Entry) {
	_, end := h.StartSpan(req.Request.Context(), "encode")
	defer end(nil)
	prefix, err := json.Marshal(head)
	if err != nil {
		h.fail(req, status.InternalError(err))
		return
	}
	// prefix ends in `"items":[]}`; reopen the items array.
	prefix = bytes.TrimSuffix(prefix, []byte("]}"))
	var out io.Writer
	var done func()
	var item bytes.Buffer
	err = h.deleteEach(req.Request.Context(), w, entries, func(obj meta.Object) error {
		item.Reset()
		if out == nil {
			item.Write(prefix)
		} else {
			item.WriteByte(',')
		}
		if err := json.NewEncoder(&item).Encode(obj); err != nil {
			return status.InternalError(err)
		}
		item.Truncate(item.Len() - 1) // the Encoder's newline
		if out == nil {
			out, done = h.bodies.Start(req.Writer, req.Request, http.StatusOK, codec.MediaTypeJSON, -1)
		}
		_, err := out.Write(item.Bytes())
		return err
	})
	if err != nil && out == nil {
		h.fail(req, err)
		return
	}
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if out == nil {
		out, done = h.bodies.Start(req.Writer, req.Request, http.StatusOK, codec.MediaTypeJSON, -1)
		_, _ = out.Write(prefix)
	}
	_, _ = out.Write([]byte("]}\n"))
	done()
}
