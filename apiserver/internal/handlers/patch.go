package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/kapi-dev/kapi/apiserver/internal/pipeline"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/codec/cbor"
	"github.com/kapi-dev/kapi/fieldvalidation"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// patchOptions are the query parameters of a PATCH, kube's PatchOptions.
type patchOptions struct {
	patchType  string // the Content-Type without parameters
	manager    string // the manager the write is recorded under
	force      bool
	validation fieldvalidation.Directive
	dry        bool
}

// patch serves PATCH on an object or its status: JSON, merge and
// strategic merge patches here, apply patches in apply.
func (h *Handler) patch(req *Request) {
	rendering, err := h.negotiateWrite(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	pb, err := h.decodePatch(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	if pb.opts.patchType == patch.ApplyPatchType {
		h.apply(req, pb, rendering)
		return
	}
	r, opts, body, bodyStrict := h.Resource, pb.opts, pb.body, pb.strict
	var strict []error
	w := h.newWrite(req, pipeline.Write{Manager: opts.manager, DryRun: opts.dry})
	w.Build = func(cur *storage.KeyValue, old meta.Object) (meta.Object, error) {
		doc, err := r.AppendJSON(nil, cur)
		if err != nil {
			return nil, status.InternalError(err)
		}
		w.KeptEntries = nil // of an attempt that lost a race
		general := func() ([]byte, error) {
			patched, live, kept, err := PatchKeepingManagedFields(r, opts.patchType, doc, old, body)
			w.LiveForm = live
			if kept {
				w.KeptEntries = old.GetObjectMeta().ManagedFields
			}
			return patched, err
		}
		obj, resultStrict, err := h.patched(req, opts.patchType, doc, old, body, general)
		if err != nil {
			return nil, err
		}
		if w.KeptEntries != nil {
			obj.GetObjectMeta().ManagedFields = CopyEntries(w.KeptEntries)
			w.KeptEntries = nil
		}
		strict = append(append([]error(nil), bodyStrict...), resultStrict...)
		if err := strictError(opts.validation, strict); err != nil {
			// kube-apiserver refuses the patched object, at "patch".
			patched, perr := general()
			if perr != nil {
				return nil, perr
			}
			return nil, patch.InvalidResult(patched, errors.New(err.(*status.Error).Status.Message))
		}
		return obj, nil
	}
	w.Track = w.UpdateTracker()
	out, err := w.Run(req.Request.Context())
	warnStrict(req.Writer, opts.validation, strict)
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeWritten(req, rendering, http.StatusOK, out.Object, out.KV)
}

// PatchKeepingManagedFields applies a patch of type patchType to doc,
// the stored object's JSON. kept reports that the result was made
// without metadata.managedFields, which the patch leaves as they are:
// the caller puts back those of the stored object, decoded already (a
// merge patch that does not name them). live is then the stored
// object's JSON form without managedFields (built from old, the stored
// object decoded, when the kind's plan builds it), for the field
// manager; nil otherwise.
func PatchKeepingManagedFields(r *registry.Resource, patchType string, doc []byte, old meta.Object, body []byte) (patched []byte, live map[string]any, kept bool, err error) {
	if patchType == patch.MergePatchType {
		// The typed stored object's form, as kube-apiserver patches the
		// encoding of the typed stored object.
		form, _ := r.TypedFormWithoutManagedFields(old)
		if patched, live, kept, err = patch.MergePatchObjectWithoutManagedFields(doc, form, body); kept || err != nil {
			return patched, live, kept, err
		}
	}
	patched, err = r.Patcher.Patch(patchType, doc, body)
	return patched, nil, false, err
}

// CopyEntries is a deep copy of managedFields entries.
func CopyEntries(entries []meta.ManagedFieldsEntry) []meta.ManagedFieldsEntry {
	if entries == nil {
		return nil
	}
	out := make([]meta.ManagedFieldsEntry, len(entries))
	for i, e := range entries {
		if e.Time != nil {
			t := *e.Time
			e.Time = &t
		}
		if e.FieldsV1 != nil {
			e.FieldsV1 = &meta.FieldsV1{Raw: slices.Clone(e.FieldsV1.Raw)}
		}
		out[i] = e
	}
	return out
}

// patchBody is a PATCH read and checked: its options, its body, and the
// unknown and duplicate fields of the body itself.
type patchBody struct {
	opts   patchOptions
	body   []byte
	strict []error
}

// decodePatch reads a PATCH's body and checks it on its own (its YAML
// cost, its unknown and duplicate fields when field validation asks for
// them), under the request's "decode" span as a create's body is.
func (h *Handler) decodePatch(req *Request) (pb patchBody, err error) {
	_, end := h.StartSpan(req.Request.Context(), "decode")
	defer func() { end(err) }()
	if pb.opts, pb.body, err = h.readPatch(req); err != nil {
		return pb, err
	}
	if pb.opts.patchType == patch.ApplyPatchType {
		isJSON := codec.IsJSON(pb.body)
		if !isJSON {
			// A JSON body is bounded by the JSON decoder's nesting limit;
			// the flow-depth bound is for the YAML parser.
			if err := codec.CheckYAMLCost(pb.body); err != nil {
				return pb, status.BadRequest(err.Error())
			}
		}
		// kube-apiserver checks the configuration for duplicate fields
		// after applying it.
		if pb.opts.validation != fieldvalidation.Ignore {
			if err := applyBodyDuplicates(pb.body, isJSON); err != nil {
				pb.strict = []error{err}
			}
		}
		return pb, nil
	}
	if pb.opts.validation != fieldvalidation.Ignore {
		pb.strict, err = patch.BodyProblems(pb.opts.patchType, pb.body)
	}
	return pb, err
}

// readPatch checks a PATCH's Content-Type against the patch types the
// kind accepts (415), reads the body and validates the PatchOptions, in
// kube-apiserver's order.
func (h *Handler) readPatch(req *Request) (patchOptions, []byte, error) {
	ct := req.Request.Header.Get("Content-Type")
	pt := patch.MediaType(ct)
	if types := h.Resource.Patcher.PatchTypes(); !slices.Contains(types, pt) {
		return patchOptions{}, nil, patch.UnsupportedPatchType(ct, types)
	}
	body, err := h.readBody(req.Request)
	if err != nil {
		return patchOptions{}, nil, err
	}
	opts, err := parsePatchOptions(req.Request, pt)
	if err != nil || pt != patch.ApplyCBORPatchType {
		return opts, body, err
	}
	// A CBOR apply configuration is converted to JSON, as kube-apiserver
	// does before anything else reads it, and from there it is the same
	// apply as YAML (JSON is YAML).
	if body, err = cbor.ToJSON(body); err != nil {
		return opts, nil, status.BadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	opts.patchType = patch.ApplyPatchType
	return opts, body, nil
}

// parsePatchOptions reads and validates the PatchOptions of a patch of
// type pt as kube-apiserver's ValidatePatchOptions does: an apply needs a
// fieldManager, only an apply may say force.
func parsePatchOptions(r *http.Request, pt string) (patchOptions, error) {
	q := r.URL.Query()
	opts := patchOptions{patchType: pt}
	fm := q.Get("fieldManager")
	force, forceSet := q["force"]
	if forceSet && len(force) > 0 {
		b, err := strconv.ParseBool(force[0])
		if err != nil {
			return opts, status.BadRequest(err.Error())
		}
		opts.force = b
	}
	var errs status.FieldErrors
	if !patch.IsApply(pt) {
		if forceSet {
			errs = append(errs, status.ForbiddenField(status.NewPath("force"), "may not be specified for non-apply patch"))
		}
	} else if fm == "" {
		errs = append(errs, status.Required(status.NewPath("fieldManager"), "is required for apply patch"))
	}
	errs = append(errs, validateFieldManager(fm)...)
	errs = append(errs, validateDryRun(q["dryRun"])...)
	directive, verrs := fieldvalidation.Parse(q.Get("fieldValidation"))
	errs = append(errs, verrs...)
	if len(errs) > 0 {
		return opts, optionsInvalid("PatchOptions", errs)
	}
	opts.manager = patch.ManagerName(fm, r.UserAgent())
	opts.validation = directive
	opts.dry = len(q["dryRun"]) > 0
	return opts, nil
}

// patched is the result of a patch of type patchType of doc, the stored
// object old's JSON, decoded as the request's object, under a "decode"
// span: a merge patch applied to old decoded again when the kind's plan
// can (see mergePatchTyped), else general's result decoded. A result
// that does not decode is the 422 kube-apiserver answers, and the
// unknown and duplicate fields come back for field validation.
func (h *Handler) patched(req *Request, patchType string, doc []byte, old meta.Object, body []byte, general func() ([]byte, error)) (_ meta.Object, _ []error, err error) {
	_, end := h.StartSpan(req.Request.Context(), "decode")
	defer func() { end(err) }()
	r := h.Resource
	if patchType == patch.MergePatchType {
		if obj, ok := MergePatchTyped(r, doc, old, body); ok {
			// The general result, made only when the required fields
			// check needs it.
			result := func() (any, error) {
				patched, err := general()
				if err != nil {
					return nil, err
				}
				return BodyJSON(codec.MediaTypeJSON, patched)()
			}
			return h.checkPatched(req, obj, r.Plan.Prune(obj), result)
		}
	}
	patched, err := general()
	if err != nil {
		return nil, nil, err
	}
	obj := r.Kind.New()
	strict, err := r.DecodeJSON(r.JSONCodec, patched, obj, false)
	if err != nil {
		return nil, nil, patch.InvalidResult(patched, err)
	}
	strict = append(strict, r.Plan.Prune(obj)...)
	return h.checkPatched(req, obj, strict, BodyJSON(codec.MediaTypeJSON, patched))
}

// decodePatched decodes the result of a patch as the request's object
// (see patched).
func (h *Handler) decodePatched(req *Request, patched []byte) (meta.Object, []error, error) {
	return h.patched(req, "", nil, nil, nil, func() ([]byte, error) { return patched, nil })
}

// checkPatched checks the decoded result of a patch as kube-apiserver
// does; result is its JSON decoded, for the required fields check and
// for telling the objects it holds (see defaultSent).
func (h *Handler) checkPatched(req *Request, obj meta.Object, strict []error, result func() (any, error)) (meta.Object, []error, error) {
	r := h.Resource
	if err := CheckTypeMeta(r, obj); err != nil {
		return nil, nil, err
	}
	if err := req.checkName(obj); err != nil {
		return nil, nil, err
	}
	if err := req.checkNamespace(r, obj); err != nil {
		return nil, nil, err
	}
	if err := h.checkRequired(req, obj, result); err != nil {
		return nil, nil, err
	}
	if err := h.defaultSent(obj, result); err != nil {
		return nil, nil, err
	}
	return obj, strict, nil
}

// strictError is the 400 for unknown and duplicate fields under
// fieldValidation=Strict.
func strictError(d fieldvalidation.Directive, strict []error) error {
	if d != fieldvalidation.Strict {
		return nil
	}
	_, err := d.Check(strict)
	return err
}

// warnStrict turns unknown and duplicate fields into warnings under
// fieldValidation=Warn. Patches call it once, after the last attempt, so
// that retries do not repeat warnings.
func warnStrict(w http.ResponseWriter, d fieldvalidation.Directive, strict []error) {
	if d == fieldvalidation.Warn {
		warnings, _ := d.Check(strict)
		addWarnings(w, warnings)
	}
}
