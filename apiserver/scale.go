package apiserver

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/kapi-dev/kapi/apiserver/filters"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/tables"
	"github.com/kapi-dev/kapi/apiserver/requestinfo"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// scale is autoscaling/v1 Scale.
type scale struct {
	meta.TypeMeta `json:",inline"`
	Metadata      meta.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec          scaleSpec       `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status        scaleStatus     `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

type scaleSpec struct {
	Replicas int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
}

type scaleStatus struct {
	Replicas int32  `json:"replicas" protobuf:"varint,1,opt,name=replicas"`
	Selector string `json:"selector,omitempty" protobuf:"bytes,2,opt,name=selector"`
}

// scaleOf reads the Scale view of an object.
func scaleOf(r *registry.Resource, obj meta.Object) (*scale, error) {
	sc, _, err := readScale(r, obj)
	return sc, err
}

// readScale is scaleOf, and also reports whether the object has its
// desired replica count (see hasReplicas).
func readScale(r *registry.Resource, obj meta.Object) (sc *scale, found bool, err error) {
	doc, err := tables.ToMap(obj)
	if err != nil {
		return nil, false, status.InternalError(err)
	}
	sp := r.Kind.Subresources.Scale
	m := obj.GetObjectMeta()
	sc = &scale{
		TypeMeta: meta.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
		Metadata: meta.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID,
			ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp},
	}
	sc.Spec.Replicas = int32(number(tables.LookupPath(doc, sp.SpecReplicasPath)))
	sc.Status.Replicas = int32(number(tables.LookupPath(doc, sp.StatusReplicasPath)))
	if sp.LabelSelectorPath != "" {
		sc.Status.Selector, _ = tables.LookupPath(doc, sp.LabelSelectorPath).(string)
	}
	_, unstructured := obj.(*meta.Unstructured)
	return sc, hasReplicas(doc, sp.SpecReplicasPath, !unstructured), nil
}

// hasReplicas reports whether doc, an object's JSON form, has its
// desired replica count at the dotted path: kube-apiserver answers 500
// to a read of the Scale of a custom resource without it, and 400 to a
// patch of that Scale that does not set it. A typed object (typed true)
// has it whenever the objects along the path are there: its Go type may
// leave out a zero count (omitempty), which its JSON cannot tell from no
// count, but it leaves out an object only when tagged omitzero, as
// Widget's spec written without one.
func hasReplicas(doc map[string]any, path string, typed bool) bool {
	parts := strings.Split(strings.Trim(path, "."), ".")
	cur := doc
	for _, p := range parts[:len(parts)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			return false
		}
		cur = next
	}
	_, present := cur[parts[len(parts)-1]]
	return typed || present
}

// noReplicas stands for the Scale's count of an object that has none,
// so that a patch that does not set one can be told (as kube-apiserver
// tells it).
const noReplicas = math.MinInt32

func number(v any) float64 {
	f, _ := v.(float64)
	return f
}

// withReplicas returns a copy of obj with the desired replica count set.
func withReplicas(r *registry.Resource, obj meta.Object, replicas int32) (meta.Object, error) {
	doc, err := tables.ToMap(obj)
	if err != nil {
		return nil, status.InternalError(err)
	}
	parts := strings.Split(strings.Trim(r.Kind.Subresources.Scale.SpecReplicasPath, "."), ".")
	cur := doc
	for _, p := range parts[:len(parts)-1] {
		next, ok := cur[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[p] = next
		}
		cur = next
	}
	cur[parts[len(parts)-1]] = replicas
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, status.InternalError(err)
	}
	out := r.Kind.New()
	if err := json.Unmarshal(b, out); err != nil {
		return nil, status.InternalError(err)
	}
	return out, nil
}

// getScale serves GET on /scale from the watch cache, with the
// resourceVersion semantics of every other get.
func (h *handler) getScale(req *request) {
	opts, err := resourceversion.ParseGet(requestinfo.Query(req.r))
	if err != nil {
		h.fail(req, err)
		return
	}
	r := h.r
	resp, err := r.Cache.Get(req.r.Context(), r.Key(req.namespace, req.name), opts)
	if err != nil {
		h.fail(req, registry.StorageError(err))
		return
	}
	if resp.Entry == nil {
		h.fail(req, status.NotFound(r.GroupResource, req.name))
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
func (h *handler) writeScale(req *request) {
	r := h.r
	desired, err := h.scaleInput(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	optionsKind := "UpdateOptions"
	if req.verb == "patch" {
		optionsKind = "PatchOptions"
	}
	manager, dry, _, err := writeOptions(req.r, optionsKind)
	if err != nil {
		h.fail(req, err)
		return
	}
	w := &write{h: h, req: req, manager: manager, dryRun: dry, track: h.scaleTracker(manager),
		build: func(_ *storage.KeyValue, old meta.Object) (meta.Object, error) {
			cur, found, err := readScale(r, old)
			if err != nil {
				return nil, err
			}
			if !found {
				cur.Spec.Replicas = noReplicas
			}
			sc, err := desired(cur)
			if err != nil {
				return nil, err
			}
			if sc.Spec.Replicas == noReplicas {
				return nil, status.BadRequest(fmt.Sprintf("the spec replicas field %q cannot be empty", r.Kind.Subresources.Scale.SpecReplicasPath))
			}
			if sc.Spec.Replicas < 0 {
				return nil, status.Invalid(meta.GroupVersionKind{Group: "autoscaling", Kind: "Scale"}, req.name, status.FieldErrors{
					status.InvalidValue(status.NewPath("spec", "replicas"), sc.Spec.Replicas, "must be greater than or equal to 0")})
			}
			obj, err := withReplicas(r, old, sc.Spec.Replicas)
			if err != nil {
				return nil, err
			}
			// The Scale's resourceVersion is the precondition.
			obj.GetObjectMeta().ResourceVersion = sc.Metadata.ResourceVersion
			return obj, nil
		}}
	out, err := w.run(req.r.Context())
	if err != nil {
		h.fail(req, err)
		return
	}
	h.respondScale(req, out.obj)
}

func (h *handler) respondScale(req *request, obj meta.Object) {
	obj, err := h.r.InVersion(obj)
	if err != nil {
		h.fail(req, err)
		return
	}
	sc, found, err := readScale(h.r, obj)
	if err != nil {
		h.fail(req, err)
		return
	}
	if !found {
		h.fail(req, status.InternalError(fmt.Errorf("the spec replicas field %q does not exist", h.r.Kind.Subresources.Scale.SpecReplicasPath)))
		return
	}
	h.writeObject(req, http.StatusOK, sc)
}

// scaleInput reads a PUT or PATCH body into a function from the current
// Scale to the desired one.
func (h *handler) scaleInput(req *request) (func(*scale) (*scale, error), error) {
	body, err := h.readBody(req.r)
	if err != nil {
		return nil, err
	}
	if req.verb == "update" {
		ser, _, err := h.codecs.ForContentType(req.r.Header.Get("Content-Type"))
		if err != nil {
			return nil, err
		}
		var sc scale
		if _, err := ser.Decode(body, &sc); err != nil {
			return nil, status.BadRequest(decodeErrorMessage(err))
		}
		filters.AuditObject(req.r.Context(), &sc.Metadata)
		if sc.Metadata.Name != req.name {
			return nil, status.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", sc.Metadata.Name, req.name))
		}
		return func(*scale) (*scale, error) { return &sc, nil }, nil
	}
	ct := req.r.Header.Get("Content-Type")
	pt := patch.MediaType(ct)
	if pt != patch.JSONPatchType && pt != patch.MergePatchType {
		return nil, patch.UnsupportedPatchType(ct, []string{patch.JSONPatchType, patch.MergePatchType})
	}
	return func(cur *scale) (*scale, error) {
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
		var sc scale
		if _, err := h.r.JSONCodec.Decode(patched, &sc); err != nil {
			return nil, patch.InvalidResult(patched, err)
		}
		return &sc, nil
	}, nil
}
