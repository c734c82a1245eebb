package handlers

import (
	"bytes"
	"net/http"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/tables"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/watch"
)

// Gets and lists in media types other than JSON (protobuf, CBOR) are
// written from encodings kept on the watch cache's entries: each object
// version is decoded and encoded once per media type, and a list is its
// items' encodings put together by the serializer (codec.ListWriter)
// rather than a List of decoded objects encoded again per request.

// encodedEntry returns the entry's object encoded with ser, encoding it the
// first time. The decoded object used for it is not kept.
func encodedEntry(r *registry.Resource, e *watch.Entry, ser codec.Serializer) ([]byte, error) {
	b, err := e.Encoded(r.VersionKey(ser.MediaType()), func() ([]byte, error) {
		decode := r.Decode
		if r.KeepsConverted() {
			// converted once for every encoding (keptObject)
			decode = func(*storage.KeyValue) (meta.Object, error) { return r.KeptObject(e) }
		}
		obj, err := decode(e.KV)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := ser.Encode(&buf, obj); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	})
	if err != nil {
		return nil, registry.InternalError(err)
	}
	return b, nil
}

// writeEncodedObject writes one object from its kept encoding.
func (h *Handler) writeEncodedObject(req *Request, ser codec.Serializer, e *watch.Entry) {
	b, err := encodedEntry(h.Resource, e, ser)
	if err != nil {
		h.fail(req, err)
		return
	}
	h.bodies.Write(req.Writer, req.Request, http.StatusOK, ser.MediaType(), b)
}

// writeEncodedList writes a page from its items' kept encodings.
func (h *Handler) writeEncodedList(req *Request, ser codec.Serializer, lw codec.ListWriter, p *page) {
	r := h.Resource
	l := &meta.List{TypeMeta: meta.TypeMeta{Kind: r.ListKind, APIVersion: r.APIVersion}, ListMeta: p.meta}
	h.streamList(req, ser.MediaType(), lw, l, p.Entries, func(e *watch.Entry) ([]byte, error) {
		return listItem(r, e, ser, lw)
	})
}

// streamList writes the list l of the entries, each as item gives it,
// as it is made: a first pass makes (or finds) every item and sums their
// sizes, so that a failure is still an error response and the size is
// known before the first item; the second finds them kept.
func (h *Handler) streamList(req *Request, contentType string, lw codec.ListWriter, l *meta.List, entries []*watch.Entry, item func(*watch.Entry) ([]byte, error)) {
	_, end := h.StartSpan(req.Request.Context(), "encode")
	defer end(nil)
	size := 0
	for _, e := range entries {
		it, err := item(e)
		if err != nil {
			h.fail(req, err)
			return
		}
		size += lw.ListItemSize(len(it))
	}
	head, tail, err := lw.ListFrame(l, len(entries), size)
	if err != nil {
		h.fail(req, status.InternalError(err))
		return
	}
	body, buf := h.bodies.NewList(req.Writer, req.Request, contentType, len(head)+size+len(tail))
	buf = append(buf, head...)
	for _, e := range entries {
		it, err := item(e)
		if err != nil {
			body.Abort(buf) // made in the first pass: cannot happen
			return
		}
		buf = lw.AppendListItem(buf, it)
		var ok bool
		if buf, ok = body.Flush(buf); !ok {
			break
		}
	}
	body.Finish(append(buf, tail...))
}

// writePartialList writes a page as a PartialObjectMetadataList in a
// media type other than JSON from its items' partial objects, encoded
// once per object version and kept on the entries, as a metadata
// informer lists them in protobuf.
func (h *Handler) writePartialList(req *Request, out ReadOutput, lw codec.ListWriter, p *page) {
	r := h.Resource
	key := r.VersionKey(partialKey) + ";" + out.Serializer.MediaType() + ";" + out.ApiVersion
	l := &meta.List{TypeMeta: meta.TypeMeta{Kind: tables.AsPartialList, APIVersion: out.ApiVersion}, ListMeta: p.meta}
	h.streamList(req, out.contentType(), lw, l, p.Entries, func(e *watch.Entry) ([]byte, error) {
		b, err := e.Encoded(key, func() ([]byte, error) {
			obj, err := r.Object(e)
			if err != nil {
				return nil, err
			}
			var buf bytes.Buffer
			if err := out.Serializer.Encode(&buf, out.partial(obj)); err != nil {
				return nil, err
			}
			item, err := lw.ListItem(buf.Bytes())
			return bytes.Clone(item), err
		})
		if err != nil {
			return nil, status.InternalError(err)
		}
		return b, nil
	})
}

// partialKey is the key of an entry's partial object among its derived
// values, followed by the media type and the partial object's version.
const partialKey = "apiserver/partial-object"

// listItem is what a list in ser's media type holds for the entry's
// object, from its kept encoding.
func listItem(r *registry.Resource, e *watch.Entry, ser codec.Serializer, lw codec.ListWriter) ([]byte, error) {
	b, err := encodedEntry(r, e, ser)
	if err != nil {
		return nil, err
	}
	if b, err = lw.ListItem(b); err != nil {
		return nil, status.InternalError(err)
	}
	return b, nil
}
