package handlers

import (
	"fmt"
	"net/http"
	"slices"

	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/apiserver/internal/pipeline"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/fieldvalidation"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// apply serves an apply patch (application/apply-patch+yaml), server-side
// apply: the configuration is merged into the stored object and its
// manager owns the fields it sets. A missing object is created (201),
// except through a subresource, as kube-apiserver does.
func (h *Handler) apply(req *Request, pb patchBody, rendering ReadOutput) {
	opts, body := pb.opts, pb.body
	var strict []error
	w := h.newWrite(req, pipeline.Write{Manager: opts.manager, DryRun: opts.dry, CreateMissing: req.Subresource == "",
		Build: func(cur *storage.KeyValue, old meta.Object) (meta.Object, error) {
			obj, resultStrict, err := h.applyConfig(req, opts, body, cur, old)
			if err != nil {
				return nil, err
			}
			strict = resultStrict
			if len(pb.strict) > 0 {
				if opts.validation == fieldvalidation.Strict {
					return nil, status.BadRequest(fmt.Sprintf("error strict decoding YAML: %v", pb.strict[0]))
				}
				strict = append(slices.Clip(pb.strict), resultStrict...)
			}
			if err := strictError(opts.validation, strict); err != nil {
				return nil, err
			}
			if uid := obj.GetObjectMeta().UID; old == nil && uid != "" {
				return nil, status.Conflict(h.Resource.GroupResource, req.Name,
					fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", uid))
			}
			return obj, nil
		}})
	out, err := w.Run(req.Request.Context())
	warnStrict(req.Writer, opts.validation, strict)
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

// applyConfig applies the configuration body to the stored object (cur
// and old are nil when there is none) and returns the new object with its
// managedFields, and the unknown and duplicate fields of the result.
func (h *Handler) applyConfig(req *Request, opts patchOptions, body []byte, cur *storage.KeyValue, old meta.Object) (meta.Object, []error, error) {
	r := h.Resource
	var live []byte
	var liveManaged []meta.ManagedFieldsEntry
	var liveObj map[string]any
	if cur != nil {
		var err error
		if live, err = r.AppendJSON(nil, cur); err != nil {
			return nil, nil, status.InternalError(err)
		}
		liveManaged = old.GetObjectMeta().ManagedFields
		// As kube-apiserver applies to the typed stored object.
		liveObj, _ = r.TypedFormWithoutManagedFields(old)
	}
	out, entries, err := r.Patcher.Apply(live, body, patch.ApplyOptions{
		Manager: opts.manager, Subresource: req.Subresource, Force: opts.force, LiveManaged: liveManaged,
		LiveObject: liveObj,
	})
	if err != nil {
		return nil, nil, err
	}
	obj, strict, err := h.decodePatched(req, out)
	if err != nil {
		return nil, nil, err
	}
	obj.GetObjectMeta().ManagedFields = entries
	return obj, strict, nil
}

// applyBodyDuplicates returns the error kube-apiserver's strict YAML
// decoding gives for duplicate fields in an apply body, or nil. A JSON
// body is checked by the JSON decoder, whose cost is linear at any depth;
// only one that has duplicates, and is shallow enough for the YAML
// parser, is read again as YAML for kube's wording.
func applyBodyDuplicates(body []byte, isJSON bool) error {
	if isJSON {
		problems, err := fieldvalidation.DecodeJSON(body, &map[string]any{})
		if err != nil || len(problems) == 0 {
			return nil
		}
		if codec.CheckYAMLCost(body) != nil {
			return problems[0]
		}
	}
	return yaml.UnmarshalStrict(body, &map[string]any{})
}
