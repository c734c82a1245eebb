package handlers

import (
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/tables"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
)

// get serves GET on an object or its status.
func (h *Handler) get(req *Request) {
	opts, err := resourceversion.ParseGet(requestinfo.Query(req.Request))
	if err != nil {
		h.fail(req, err)
		return
	}
	out, err := h.negotiateRead(req, false, false)
	if err != nil {
		h.fail(req, err)
		return
	}
	r := h.Resource
	ctx := req.Request.Context()
	resp, err := r.Cache.Get(ctx, r.Key(req.Namespace, req.Name), opts)
	if err != nil {
		h.fail(req, registry.StorageError(err))
		return
	}
	if resp.Entry == nil {
		h.fail(req, status.NotFound(r.GroupResource, req.Name))
		return
	}
	if out.Serializer.MediaType() == codec.MediaTypeJSON {
		switch out.As {
		case tables.TransformNone:
			h.writeRawObject(req, resp.Entry)
			return
		case tables.AsTable, tables.AsPartial:
			h.writeRowObject(req, out, resp.Entry)
			return
		}
	}
	if _, ok := out.Serializer.(codec.ListWriter); ok && out.As == tables.TransformNone {
		h.writeEncodedObject(req, out.Serializer, resp.Entry)
		return
	}
	obj, err := r.Object(resp.Entry)
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeRead(req, out, obj)
}
