package apiserver

import (
	"bytes"
	"net/http"

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

// encoded returns the entry's object encoded with ser, encoding it the
// first time. The decoded object used for it is not kept.
func (r *resource) encoded(e *watch.Entry, ser codec.Serializer) ([]byte, error) {
	b, err := e.Encoded(r.versionKey(ser.MediaType()), func() ([]byte, error) {
		decode := r.decode
		if r.versions != nil && r.versions.convertList != nil {
			// converted with the rest of the list (convertPage)
			decode = func(*storage.KeyValue) (meta.Object, error) { return r.keptObject(e) }
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
		return nil, status.InternalError(err)
	}
	return b, nil
}

// writeEncodedObject writes one object from its kept encoding.
func (h *handler) writeEncodedObject(req *request, ser codec.Serializer, e *watch.Entry) {
	b, err := h.r.encoded(e, ser)
	if err != nil {
		h.fail(req, err)
		return
	}
	writeBody(req.w, req.r, http.StatusOK, ser.MediaType(), b)
}

// writeEncodedList writes a page from its items' kept encodings.
func (h *handler) writeEncodedList(req *request, ser codec.Serializer, lw codec.ListWriter, p *page) {
	r := h.r
	items := make([][]byte, len(p.entries))
	size := 0
	for i, e := range p.entries {
		b, err := r.encoded(e, ser)
		if err == nil {
			b, err = lw.ListItem(b)
		}
		if err != nil {
			h.fail(req, status.InternalError(err))
			return
		}
		items[i] = b
		size += len(b) + 8
	}
	l := &meta.List{TypeMeta: meta.TypeMeta{Kind: r.listKind, APIVersion: r.apiVersion}, ListMeta: p.meta}
	buf, err := lw.AppendList(make([]byte, 0, size+256), l, items)
	if err != nil {
		h.fail(req, status.InternalError(err))
		return
	}
	writeBody(req.w, req.r, http.StatusOK, ser.MediaType(), buf)
}
