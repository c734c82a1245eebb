package handlers

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/kapi-dev/kapi/apiserver/internal/pipeline"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// delete serves DELETE on an object.
func (h *Handler) delete(req *Request) {
	rendering, err := h.negotiateWrite(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	opts, dry, err := h.deleteOptions(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	if unsafeDelete(opts) {
		h.deleteCorrupt(req)
		return
	}
	w := h.newWrite(req, pipeline.Write{DryRun: dry, DeleteOptions: &opts})
	out, deleted, err := w.Delete(req.Request.Context(), req.Namespace, req.Name, opts)
	if err != nil {
		h.fail(req, err)
		return
	}
	if deleted && !h.Resource.Kind.ReturnDeletedObject {
		h.writeRendered(req, rendering, http.StatusOK, successStatus(h.Resource, out))
		return
	}
	code := http.StatusOK
	// kube answers 202 only to a cascading delete that left the object in
	// place: a kind that answers the object it removed at once gets 200.
	if !deleted && opts.OrphanDependents != nil && !*opts.OrphanDependents {
		code = http.StatusAccepted
	}
	h.writeRendered(req, rendering, code, out)
}

// deleteOptions reads DeleteOptions from the body (when there is one) and
// the query.
func (h *Handler) deleteOptions(req *Request) (meta.DeleteOptions, bool, error) {
	var opts meta.DeleteOptions
	body, err := h.readBody(req.Request)
	if err != nil {
		return opts, false, err
	}
	if len(body) > 0 {
		ser, _, err := h.Codecs.ForContentType(req.Request.Header.Get("Content-Type"))
		if err != nil {
			return opts, false, err
		}
		if _, err := ser.Decode(body, &opts); err != nil {
			return opts, false, status.BadRequest(decodeErrorMessage(err))
		}
	}
	q := req.Request.URL.Query()
	if v := q.Get("gracePeriodSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return opts, false, status.BadRequest(fmt.Sprintf("invalid gracePeriodSeconds %q", v))
		}
		opts.GracePeriodSeconds = &n
	}
	if v := q.Get("propagationPolicy"); v != "" {
		p := meta.DeletionPropagation(v)
		opts.PropagationPolicy = &p
	}
	if v := q.Get("orphanDependents"); v != "" {
		b := requestinfo.IsTrue(v)
		opts.OrphanDependents = &b
	}
	if v := q.Get(ignoreReadErrorOption); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return opts, false, status.BadRequest(fmt.Sprintf("invalid %s %q", ignoreReadErrorOption, v))
		}
		opts.IgnoreStoreReadErrorWithClusterBreakingPotential = &b
	}
	if p := opts.PropagationPolicy; p != nil {
		switch *p {
		case meta.DeletePropagationBackground, meta.DeletePropagationForeground, meta.DeletePropagationOrphan:
		default:
			return opts, false, status.Invalid(meta.GroupVersionKind{Group: "meta.k8s.io", Kind: "DeleteOptions"}, "",
				status.FieldErrors{status.NotSupported(status.NewPath("propagationPolicy"), string(*p), []string{"Foreground", "Background", "Orphan", "nil"})})
		}
	}
	opts.DryRun = append(q["dryRun"], opts.DryRun...)
	errs := validateDryRun(opts.DryRun)
	if errs = append(errs, validateUnsafeDelete(opts)...); len(errs) > 0 {
		return opts, false, optionsInvalid("DeleteOptions", errs)
	}
	opts.TypeMeta = meta.TypeMeta{Kind: "DeleteOptions", APIVersion: "meta.k8s.io/v1"}
	return opts, len(opts.DryRun) > 0, nil
}
