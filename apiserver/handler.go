package apiserver

import (
	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
)

// handler serves the requests of one registered resource, one method per
// verb: get, list, watch, create, update, patch (and apply), delete,
// deleteCollection, and the scale subresource's getScale and
// writeScale. Writes go through the pipeline of pipeline.go.
type handler struct {
	*core
	r *registry.Resource
	// live is set for a kind added by Install, which Install may replace
	// and Uninstall remove.
	live bool
}

// serve dispatches a routed request to its verb.
func (h *handler) serve(req *request) {
	if msg := h.r.Deprecation; msg != "" {
		addWarning(req.w, msg)
	}
	switch req.verb {
	case "create", "update", "patch", "delete":
		filters.BoundWrite(req.r.Context(), h.writeTimeout)
	}
	if req.subresource == "scale" {
		if req.verb == "get" {
			h.getScale(req)
		} else {
			h.writeScale(req)
		}
		return
	}
	switch req.verb {
	case "get":
		h.get(req)
	case "list":
		h.list(req)
	case "watch":
		h.watch(req)
	case "create":
		h.create(req)
	case "update":
		h.update(req)
	case "patch":
		h.patch(req)
	case "delete":
		h.delete(req)
	case "deletecollection":
		h.deleteCollection(req)
	}
}

// newWrite returns w, a write's own settings, made a write of req.
func (h *handler) newWrite(req *request, w write) *write {
	q := req.r.URL.Query()
	w.r, w.chain, w.log = h.r, &h.admission, h.log
	w.namespace, w.name, w.subresource = req.namespace, req.name, req.subresource
	w.query = writeQuery{dryRun: q["dryRun"], fieldManager: q.Get("fieldManager"), fieldValidation: q.Get("fieldValidation")}
	return &w
}
