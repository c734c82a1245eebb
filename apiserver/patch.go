package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// Patch media types.
const (
	patchTypeJSON  = "application/json-patch+json"
	patchTypeMerge = "application/merge-patch+json"
	// maxJSONPatchOperations bounds the work one JSON patch can ask for,
	// as kube-apiserver does.
	maxJSONPatchOperations = 10000
)

// patch serves PATCH on an object or its status.
func (s *Server) patch(req *request) {
	ct := req.r.Header.Get("Content-Type")
	mt, err := codec.ParseMediaType(ct)
	if err != nil || (mt.Type != patchTypeJSON && mt.Type != patchTypeMerge) {
		s.writeError(req.w, req.r, status.UnsupportedMediaType(ct, []string{patchTypeJSON, patchTypeMerge}))
		return
	}
	directive, err := fieldValidation(req.r)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	dry, err := dryRun(req.r.URL.Query()["dryRun"])
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	body, err := s.readBody(req.r)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	apply, err := patcherFor(mt.Type, body)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	tryUpdate := func(cur *storage.KeyValue, old meta.Object) (meta.Object, error) {
		return s.applyPatch(req, old, apply, directive)
	}
	out, _, err := s.guaranteedUpdate(req.r.Context(), req, dry, tryUpdate, nil)
	if err != nil {
		s.writeError(req.w, req.r, err)
		return
	}
	s.writeObject(req, http.StatusOK, out)
}

// patcherFor parses the patch once and returns a function applying it to
// an object's JSON.
func patcherFor(patchType string, body []byte) (func([]byte) ([]byte, error), error) {
	switch patchType {
	case patchTypeJSON:
		p, err := jsonpatch.DecodePatch(body)
		if err != nil {
			return nil, status.BadRequest(fmt.Sprintf("error decoding patch: %v", err))
		}
		if len(p) > maxJSONPatchOperations {
			return nil, status.RequestEntityTooLarge(fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(p)))
		}
		return func(doc []byte) ([]byte, error) { return p.Apply(doc) }, nil
	default:
		var v map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			return nil, status.BadRequest(fmt.Sprintf("error decoding patch: %v", err))
		}
		return func(doc []byte) ([]byte, error) { return jsonpatch.MergePatch(doc, body) }, nil
	}
}

// applyPatch applies the patch to old and decodes the result as the new
// object, with field validation.
func (s *Server) applyPatch(req *request, old meta.Object, apply func([]byte) ([]byte, error), directive string) (meta.Object, error) {
	r := req.res
	doc, err := json.Marshal(old)
	if err != nil {
		return nil, status.InternalError(err)
	}
	patched, err := apply(doc)
	if err != nil {
		return nil, status.New(http.StatusUnprocessableEntity, meta.StatusReasonInvalid, err.Error())
	}
	obj := r.kind.New()
	strict, err := codec.JSON{}.Decode(patched, obj)
	if err != nil {
		return nil, status.BadRequest(decodeErrorMessage(err))
	}
	if err := applyFieldValidation(req.w, directive, strict); err != nil {
		return nil, err
	}
	if err := r.checkTypeMeta(obj); err != nil {
		return nil, err
	}
	if err := req.checkName(obj); err != nil {
		return nil, err
	}
	if err := req.checkNamespace(obj); err != nil {
		return nil, err
	}
	return obj, nil
}
