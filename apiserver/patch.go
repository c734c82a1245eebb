package apiserver

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/codec/cbor"
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
	validation string // fieldValidation
	dry        bool
}

// patch serves PATCH on an object or its status: JSON, merge and
// strategic merge patches here, apply patches in apply.
func (h *handler) patch(req *request) {
	opts, body, err := h.readPatch(req)
	if err != nil {
		h.fail(req, err)
		return
	}
	if opts.patchType == patch.ApplyPatchType {
		h.apply(req, opts, body)
		return
	}
	r := h.r
	bodyStrict, err := checkPatchBody(opts.patchType, body, opts.validation)
	if err != nil {
		h.fail(req, err)
		return
	}
	var strict []error
	w := &write{h: h, req: req, manager: opts.manager, dryRun: opts.dry,
		build: func(cur *storage.KeyValue, _ meta.Object) (meta.Object, error) {
			doc, err := r.appendJSON(nil, cur)
			if err != nil {
				return nil, status.InternalError(err)
			}
			patched, err := r.patcher.Patch(opts.patchType, doc, body)
			if err != nil {
				return nil, err
			}
			obj, resultStrict, err := h.decodePatched(req, patched)
			if err != nil {
				return nil, err
			}
			strict = append(append([]error(nil), bodyStrict...), resultStrict...)
			return obj, strictError(opts.validation, strict)
		}}
	w.track = h.updateTracker(w)
	out, err := w.run(req.r.Context())
	warnStrict(req.w, opts.validation, strict)
	if err != nil {
		h.fail(req, err)
		return
	}
	h.writeStored(req, http.StatusOK, out.obj, out.kv)
}

// readPatch checks a PATCH's Content-Type against the patch types the
// kind accepts (415), reads the body and validates the PatchOptions, in
// kube-apiserver's order.
func (h *handler) readPatch(req *request) (patchOptions, []byte, error) {
	ct := req.r.Header.Get("Content-Type")
	pt := patch.MediaType(ct)
	if types := h.r.patcher.PatchTypes(); !contains(types, pt) {
		return patchOptions{}, nil, patch.UnsupportedPatchType(ct, types)
	}
	body, err := h.readBody(req.r)
	if err != nil {
		return patchOptions{}, nil, err
	}
	opts, err := parsePatchOptions(req.r, pt)
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
	if len(errs) > 0 {
		return opts, optionsInvalid("PatchOptions", errs)
	}
	opts.manager = patch.ManagerName(fm, r.UserAgent())
	var err error
	if opts.validation, err = fieldValidation(r); err != nil {
		return opts, err
	}
	if opts.dry, err = dryRun(q["dryRun"]); err != nil {
		return opts, err
	}
	return opts, nil
}

// jsonPatchOp is one JSON patch operation, as kube-apiserver decodes it
// to check the patch for unknown and duplicate fields.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// checkPatchBody decodes a JSON, merge or strategic merge patch strictly,
// as kube-apiserver does unless fieldValidation is Ignore, and returns
// its unknown and duplicate fields. A body that does not decode is a 400.
func checkPatchBody(pt string, body []byte, directive string) ([]error, error) {
	if directive == fieldValidationIgnore {
		return nil, nil
	}
	switch pt {
	case patch.JSONPatchType:
		var ops []jsonPatchOp
		strict, err := codec.JSON{}.Decode(body, &ops)
		if err != nil {
			// kube-apiserver's decoder names its own type.
			msg := strings.Replace(err.Error(), "apiserver.jsonPatchOp", "handlers.jsonPatchOp", 1)
			return nil, status.BadRequest("error decoding patch: " + msg)
		}
		for i, e := range strict {
			strict[i] = fmt.Errorf("json patch %v", e)
		}
		return strict, nil
	case patch.MergePatchType:
		var v map[string]any
		strict, err := codec.JSON{}.Decode(body, &v)
		if err != nil {
			return nil, status.BadRequest("error decoding patch: " + err.Error())
		}
		return strict, nil
	default: // strategic merge patch
		var v map[string]any
		strict, err := codec.JSON{}.Decode(body, &v)
		if err != nil {
			return nil, status.BadRequest(err.Error())
		}
		return strict, nil
	}
}

// decodePatched decodes the result of a patch as the request's object: a
// result that does not decode is the 422 kube-apiserver answers, and the
// unknown and duplicate fields come back for field validation.
func (h *handler) decodePatched(req *request, patched []byte) (meta.Object, []error, error) {
	r := h.r
	obj := r.kind.New()
	strict, err := codec.JSON{}.Decode(patched, obj)
	if err != nil {
		return nil, nil, patch.InvalidResult(patched, err)
	}
	strict = append(strict, r.kind.plan.prune(obj)...)
	if err := r.checkTypeMeta(obj); err != nil {
		return nil, nil, err
	}
	if err := req.checkName(obj); err != nil {
		return nil, nil, err
	}
	if err := req.checkNamespace(r, obj); err != nil {
		return nil, nil, err
	}
	return obj, strict, nil
}

// strictError is the 400 for unknown and duplicate fields under
// fieldValidation=Strict.
func strictError(directive string, strict []error) error {
	if directive != fieldValidationStrict {
		return nil
	}
	return applyFieldValidation(nil, directive, strict)
}

// warnStrict turns unknown and duplicate fields into warnings under
// fieldValidation=Warn. Patches call it once, after the last attempt, so
// that retries do not repeat warnings.
func warnStrict(w http.ResponseWriter, directive string, strict []error) {
	if directive == fieldValidationWarn {
		_ = applyFieldValidation(w, directive, strict)
	}
}
