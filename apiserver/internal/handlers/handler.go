package handlers

import (
	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/internal/pipeline"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
)

// Handler serves the requests of one registered resource, one method per
// verb: get, list, watch, create, update, patch (and apply), delete,
// deleteCollection, and the scale subresource's getScale and
// writeScale. Writes go through the pipeline of pipeline.go.
type Handler struct {
	*Core
	Resource *registry.Resource
	// Live is set for a kind added by Install, which Install may replace
	// and Uninstall remove.
	Live bool
}

// Serve dispatches a routed request to its verb.
func (h *Handler) Serve(req *Request) {
	if msg := h.Resource.Deprecation; msg != "" {
		responsewriters.AddWarning(req.Writer.Header(), msg)
	}
	switch req.Verb {
	case "create", "update", "patch", "delete":
		filters.BoundWrite(req.Request.Context(), h.WriteTimeout)
	}
	if req.Subresource == "scale" {
		if req.Verb == "get" {
			h.getScale(req)
		} else {
			h.writeScale(req)
		}
		return
	}
	switch req.Verb {
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
func (h *Handler) newWrite(req *Request, w pipeline.Write) *pipeline.Write {
	q := req.Request.URL.Query()
	w.Resource, w.Admission, w.Log = h.Resource, &h.Admission, h.Log
	w.Namespace, w.Name, w.Subresource = req.Namespace, req.Name, req.Subresource
	w.Query = pipeline.Query{DryRun: q["dryRun"], FieldManager: q.Get("fieldManager"), FieldValidation: q.Get("fieldValidation")}
	return &w
}
