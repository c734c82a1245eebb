package handlers

import (
	"fmt"
	"net/http"

	"github.com/kapi-dev/kapi/apiserver/internal/pipeline"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// update serves PUT on an object or its status.
func (h *Handler) update(req *Request) {
	rendering, err := h.negotiateWrite(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	in, err := h.readWrite(req, "UpdateOptions")
	if err != nil {
		h.fail(req, err)
		return
	}
	// The body's resourceVersion is the precondition on every attempt and
	// its managedFields the entries the request sent; preparing the write
	// overwrites both, so restore them before each attempt.
	m := in.obj.GetObjectMeta()
	bodyRV, bodyManaged := m.ResourceVersion, m.ManagedFields
	w := h.newWrite(req, pipeline.Write{Manager: in.manager, DryRun: in.dry,
		CreateMissing: h.Resource.Kind.AllowCreateOnUpdate && req.Subresource == "",
		Build: func(*storage.KeyValue, meta.Object) (meta.Object, error) {
			m.ResourceVersion, m.ManagedFields = bodyRV, bodyManaged
			return in.obj, nil
		}})
	w.Track = w.UpdateTracker()
	out, err := w.Run(req.Request.Context())
	if err != nil {
		h.fail(req, err)
		return
	}
	code := http.StatusOK
	if out.Created {
		code = http.StatusCreated
	}
	h.writeWritten(req, rendering, code, out.Object, out.KV)
}

func (req *Request) checkName(obj meta.Object) error {
	if name := obj.GetObjectMeta().Name; name != req.Name {
		return status.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, req.Name))
	}
	return nil
}
