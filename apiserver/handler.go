package apiserver

import (
	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/internal/pipeline"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
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
		responsewriters.AddWarning(req.w.Header(), msg)
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
func (h *handler) newWrite(req *request, w pipeline.Write) *pipeline.Write {
	q := req.r.URL.Query()
	w.Resource, w.Admission, w.Log = h.r, &h.admission, h.log
	w.Namespace, w.Name, w.Subresource = req.namespace, req.name, req.subresource
	w.Query = pipeline.Query{DryRun: q["dryRun"], FieldManager: q.Get("fieldManager"), FieldValidation: q.Get("fieldValidation")}
	return &w
}
