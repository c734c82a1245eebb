package handlers

import (
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
)

// A write answers in the rendering a read would: the object, or, when
// the client asks for one, a Table of one row or a
// PartialObjectMetadata, as kube-apiserver answers a create, update,
// patch or delete. The rendering is picked before anything is written,
// so that a client that accepts nothing the server sends gets 406 Not
// Acceptable and the write is not made.

// negotiateWrite picks the rendering of a write's response.
func (h *Handler) negotiateWrite(req *Request) (ReadOutput, error) {
	return h.negotiateRead(req, false, false)
}

// writeWritten writes the object a write left, in the negotiated
// rendering.
func (h *Handler) writeWritten(req *Request, out ReadOutput, code int, obj meta.Object, kv *storage.KeyValue) {
	if out.As == "" {
		h.writeStored(req, code, obj, kv)
		return
	}
	obj, err := h.Resource.InVersion(obj)
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeRendered(req, out, code, obj)
}

// writeRendered writes v (an object, a list or a Status, which no
// transformation changes) in the negotiated rendering.
func (h *Handler) writeRendered(req *Request, out ReadOutput, code int, v any) {
	if out.As == "" {
		h.writeObject(req, code, v)
		return
	}
	if st, ok := v.(*meta.Status); ok {
		h.writeEncoded(req, code, out.Serializer, out.contentType(), st)
		return
	}
	rendered, err := out.Render(h.Resource, v)
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeEncoded(req, code, out.Serializer, out.contentType(), rendered)
}
