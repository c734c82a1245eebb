package apiserver

import (
	"net/http"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/storage"
)

// create serves POST on a collection.
func (h *handler) create(req *request) {
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
	w := h.newWrite(req, write{manager: in.manager, dryRun: in.dry, post: true,
		build: func(*storage.KeyValue, meta.Object) (meta.Object, error) { return in.obj, nil }})
	w.track = w.updateTracker()
	out, err := w.run(req.r.Context())
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeWritten(req, rendering, http.StatusCreated, out.obj, out.kv)
}
