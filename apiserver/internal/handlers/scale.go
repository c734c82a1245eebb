package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/internal/pipeline"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// getScale serves GET on /scale from the watch cache, with the
// resourceVersion semantics of every other get.
func (h *Handler) getScale(req *Request) {
	opts, err := resourceversion.ParseGet(requestinfo.Query(req.Request))
	if err != nil {
		h.fail(req, err)
		return
	}
	r := h.Resource
	resp, err := r.Cache.Get(req.Request.Context(), r.Key(req.Namespace, req.Name), opts)
	if err != nil {
		h.fail(req, registry.StorageError(err))
		return
	}
	if resp.Entry == nil {
		h.fail(req, status.NotFound(r.GroupResource, req.Name))
		return
	}
	// The cached object is shared with other readers; respondScale only
	// reads it (converting it to the request's version first).
	obj, err := registry.Object(resp.Entry)
	if err != nil {
		h.fail(req, err)
		return
	}
	h.respondScale(req, obj)
}

// writeScale serves PUT and PATCH on /scale: the Scale's spec.replicas
// is written to the object's replicas field through the write pipeline.
func (h *Handler) writeScale(req *Request) {
	r := h.Resource
	desired, err := h.scaleInput(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	optionsKind := "UpdateOptions"
	if req.Verb == "patch" {
		optionsKind = "PatchOptions"
	}
	manager, dry, _, err := writeOptions(req.Request, optionsKind)
	if err != nil {
		h.fail(req, err)
		return
	}
	w := h.newWrite(req, pipeline.Write{Manager: manager, DryRun: dry,
		Build: func(_ *storage.KeyValue, old meta.Object) (meta.Object, error) {
			cur, found, err := r.ReadScale(old)
			if err != nil {
				return nil, err
			}
			if !found {
				cur.Spec.Replicas = registry.NoReplicas
			}
			sc, err := desired(cur)
			if err != nil {
				return nil, err
			}
			if sc.Spec.Replicas == registry.NoReplicas {
				return nil, status.BadRequest(fmt.Sprintf("the spec replicas field %q cannot be empty", r.Kind.Subresources.Scale.SpecReplicasPath))
			}
			if sc.Spec.Replicas < 0 {
				return nil, status.Invalid(meta.GroupVersionKind{Group: "autoscaling", Kind: "Scale"}, req.Name, status.FieldErrors{
					status.InvalidValue(status.NewPath("spec", "replicas"), sc.Spec.Replicas, "must be greater than or equal to 0")})
			}
			obj, err := r.WithReplicas(old, sc.Spec.Replicas)
			if err != nil {
				return nil, err
			}
			// The Scale's resourceVersion is the precondition.
			obj.GetObjectMeta().ResourceVersion = sc.Metadata.ResourceVersion
			return obj, nil
		}})
	w.Track = w.ScaleTracker()
	out, err := w.Run(req.Request.Context())
	if err != nil {
		h.fail(req, err)
		return
	}
	h.respondScale(req, out.Object)
}

func (h *Handler) respondScale(req *Request, obj meta.Object) {
	obj, err := h.Resource.InVersion(obj)
	if err != nil {
		h.fail(req, err)
		return
	}
	sc, found, err := h.Resource.ReadScale(obj)
	if err != nil {
		h.fail(req, err)
		return
	}
	if !found {
		h.fail(req, status.InternalError(fmt.Errorf("the spec replicas field %q does not exist", h.Resource.Kind.Subresources.Scale.SpecReplicasPath)))
		return
	}
	h.writeObject(req, http.StatusOK, sc)
}

// scaleInput reads a PUT or PATCH body into a function from the current
// Scale to the desired one.
func (h *Handler) scaleInput(req *Request) (func(*registry.AutoscalingScale) (*registry.AutoscalingScale, error), error) {
	body, err := h.readBody(req.Request)
	if err != nil {
		return nil, err
	}
	if req.Verb == "update" {
		ser, _, err := h.Codecs.ForContentType(req.Request.Header.Get("Content-Type"))
		if err != nil {
			return nil, err
		}
		var sc registry.AutoscalingScale
		if _, err := ser.Decode(body, &sc); err != nil {
			return nil, status.BadRequest(decodeErrorMessage(err))
		}
		filters.AuditObject(req.Request.Context(), &sc.Metadata)
		if sc.Metadata.Name != req.Name {
			return nil, status.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", sc.Metadata.Name, req.Name))
		}
		return func(*registry.AutoscalingScale) (*registry.AutoscalingScale, error) { return &sc, nil }, nil
	}
	ct := req.Request.Header.Get("Content-Type")
	pt := patch.MediaType(ct)
	if pt != patch.JSONPatchType && pt != patch.MergePatchType {
		return nil, patch.UnsupportedPatchType(ct, []string{patch.JSONPatchType, patch.MergePatchType})
	}
	return func(cur *registry.AutoscalingScale) (*registry.AutoscalingScale, error) {
		doc, err := json.Marshal(cur)
		if err != nil {
			return nil, status.InternalError(err)
		}
		var patched []byte
		if pt == patch.JSONPatchType {
			patched, err = patch.JSONPatch(doc, body, 0)
		} else {
			patched, err = patch.MergePatch(doc, body)
		}
		if err != nil {
			return nil, err
		}
		var sc registry.AutoscalingScale
		if _, err := h.Resource.JSONCodec.Decode(patched, &sc); err != nil {
			return nil, patch.InvalidResult(patched, err)
		}
		return &sc, nil
	}, nil
}
