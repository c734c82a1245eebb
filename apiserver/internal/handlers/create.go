package handlers

import (
	"net/http"

	"github.com/kapi-dev/kapi/apiserver/internal/pipeline"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
)

// create serves POST on a collection.
func (h *Handler) create(req *Request) {
	rendering, err := h.negotiateWrite(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	in, err := h.readWrite(req, "CreateOptions")
	if err != nil {
		h.fail(req, err)
		return
	}
	w := h.newWrite(req, pipeline.Write{Manager: in.manager, DryRun: in.dry, Post: true,
		Build: func(*storage.KeyValue, meta.Object) (meta.Object, error) { return in.obj, nil }})
	w.Track = w.UpdateTracker()
	out, err := w.Run(req.Request.Context())
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeWritten(req, rendering, http.StatusCreated, out.Object, out.KV)
}
