package apiserver

import (
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/tables"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
)

// get serves GET on an object or its status.
func (h *handler) get(req *request) {
	opts, err := resourceversion.ParseGet(requestinfo.Query(req.r))
	if err != nil {
		h.fail(req, err)
		return
	}
	out, err := h.negotiateRead(req, false, false)
	if err != nil {
		h.fail(req, err)
		return
	}
	r := h.r
	ctx := req.r.Context()
	resp, err := r.Cache.Get(ctx, r.Key(req.namespace, req.name), opts)
	if err != nil {
		h.fail(req, registry.StorageError(err))
		return
	}
	if resp.Entry == nil {
		h.fail(req, status.NotFound(r.GroupResource, req.name))
		return
	}
	if out.ser.MediaType() == codec.MediaTypeJSON {
		switch out.as {
		case tables.TransformNone:
			h.writeRawObject(req, resp.Entry)
			return
		case tables.AsTable, tables.AsPartial:
			h.writeRowObject(req, out, resp.Entry)
			return
		}
	}
	if _, ok := out.ser.(codec.ListWriter); ok && out.as == tables.TransformNone {
		h.writeEncodedObject(req, out.ser, resp.Entry)
		return
	}
	obj, err := r.Object(resp.Entry)
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeRead(req, out, obj)
}
