package apiserver

import (
	"fmt"
	"net/http"

	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// apply serves an apply patch (application/apply-patch+yaml), server-side
// apply: the configuration is merged into the stored object and its
// manager owns the fields it sets. A missing object is created (201),
// except through a subresource, as kube-apiserver does.
func (s *Server) apply(req *request, opts patchOptions, body []byte) {
	r := req.res
	ctx := req.r.Context()
	var bodyStrict error
	if opts.validation != fieldValidationIgnore {
		// kube-apiserver checks the configuration for duplicate fields
		// after applying it.
		if err := yaml.UnmarshalStrict(body, &map[string]any{}); err != nil {
			bodyStrict = err
		}
	}
	var strict []error
	applyTo := func(cur *storage.KeyValue, old meta.Object) (meta.Object, error) {
		obj, resultStrict, err := s.applyConfig(req, opts, body, cur, old)
		if err != nil {
			return nil, err
		}
		strict = resultStrict
		if bodyStrict != nil {
			if opts.validation == fieldValidationStrict {
				return nil, status.BadRequest(fmt.Sprintf("error strict decoding YAML: %v", bodyStrict))
			}
			strict = append([]error{bodyStrict}, resultStrict...)
		}
		return obj, strictError(opts.validation, strict)
	}
	var create func() (meta.Object, error)
	if req.subresource == "" {
		create = func() (meta.Object, error) {
			obj, err := applyTo(nil, nil)
			if err != nil {
				return nil, err
			}
			if uid := obj.GetObjectMeta().UID; uid != "" {
				return nil, status.Conflict(r.gr, req.name,
					fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", uid))
			}
			return s.createObject(ctx, r, obj, opts.dry, nil)
		}
	}
	out, created, err := s.guaranteedUpdate(ctx, req, opts.dry, applyTo, create, nil)
	warnStrict(req.w, opts.validation, strict)
	if err != nil {
		s.fail(req, err)
		return
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	s.writeObject(req, code, out)
}

// applyConfig applies the configuration body to the stored object (cur
// and old are nil when there is none) and returns the new object with its
// managedFields, and the unknown and duplicate fields of the result.
func (s *Server) applyConfig(req *request, opts patchOptions, body []byte, cur *storage.KeyValue, old meta.Object) (meta.Object, []error, error) {
	r := req.res
	var live []byte
	var liveManaged []meta.ManagedFieldsEntry
	if cur != nil {
		var err error
		if live, err = r.appendJSON(nil, cur); err != nil {
			return nil, nil, status.InternalError(err)
		}
		liveManaged = old.GetObjectMeta().ManagedFields
	}
	out, entries, err := r.patcher.Apply(live, body, opts.manager, req.subresource, opts.force, liveManaged)
	if err != nil {
		return nil, nil, err
	}
	obj, strict, err := req.decodePatched(out)
	if err != nil {
		return nil, nil, err
	}
	obj.GetObjectMeta().ManagedFields = entries
	return obj, strict, nil
}
