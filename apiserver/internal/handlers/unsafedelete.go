package handlers

import (
	"context"
	"net/http"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// ignoreReadErrorOption is the DeleteOptions field (and query parameter)
// that asks for the unsafe deletion of an object that cannot be read.
const ignoreReadErrorOption = "ignoreStoreReadErrorWithClusterBreakingPotential"

// unsafeDelete reports whether a delete asks to remove an unreadable
// object whatever the consequences.
func unsafeDelete(opts meta.DeleteOptions) bool {
	p := opts.IgnoreStoreReadErrorWithClusterBreakingPotential
	return p != nil && *p
}

// validateUnsafeDelete checks that an unsafe delete sets no other option:
// it runs no dry run, grace period, propagation or precondition.
func validateUnsafeDelete(opts meta.DeleteOptions) status.FieldErrors {
	if !unsafeDelete(opts) {
		return nil
	}
	const detail = "cannot be set together with " + ignoreReadErrorOption
	var errs status.FieldErrors
	if len(opts.DryRun) > 0 {
		errs = append(errs, status.InvalidValue(status.NewPath("dryRun"), opts.DryRun, detail))
	}
	if opts.GracePeriodSeconds != nil {
		errs = append(errs, status.InvalidValue(status.NewPath("gracePeriodSeconds"), *opts.GracePeriodSeconds, detail))
	}
	if opts.OrphanDependents != nil {
		errs = append(errs, status.InvalidValue(status.NewPath("orphanDependents"), *opts.OrphanDependents, detail))
	}
	if opts.Preconditions != nil {
		errs = append(errs, status.InvalidValue(status.NewPath("preconditions"), "", detail))
	}
	if opts.PropagationPolicy != nil {
		errs = append(errs, status.InvalidValue(status.NewPath("propagationPolicy"), string(*opts.PropagationPolicy), detail))
	}
	return errs
}

// deleteCorrupt serves a DELETE with
// ignoreStoreReadErrorWithClusterBreakingPotential: an object whose
// stored value no longer decodes is removed from the store as it is,
// without finalizers, preconditions or admission, none of which can run
// on an object that cannot be read. An object that decodes is refused
// (422): the option is for unreadable objects only. The caller must also
// hold the unsafe-delete-ignore-read-errors verb on the resource.
func (h *Handler) deleteCorrupt(req *Request) {
	if err := h.Guard.AuthorizeUnsafeDelete(req.Request); err != nil {
		h.fail(req, err)
		return
	}
	ctx := req.Request.Context()
	if err := h.removeCorrupt(ctx, req.Namespace, req.Name); err != nil {
		h.fail(req, err)
		return
	}
	obj := h.Resource.NewObject()
	obj.GetObjectMeta().Name = req.Name
	h.writeObject(req, http.StatusOK, successStatus(h.Resource, obj))
}

// removeCorrupt deletes the stored value of an object that fails to
// decode, at the revision it was read at (retrying when it changed
// meanwhile, in case it became readable).
func (h *Handler) removeCorrupt(ctx context.Context, namespace, name string) error {
	r := h.Resource
	key := r.Key(namespace, name)
	for {
		cur, err := r.Store.Get(ctx, key, storage.GetOptions{})
		if err != nil {
			return registry.StorageError(err)
		}
		if cur.KV == nil {
			return status.NotFound(r.GroupResource, name)
		}
		if _, err := r.Decode(cur.KV); err == nil {
			return status.Invalid(meta.GroupVersionKind{Group: r.GroupResource.Group, Kind: r.GroupResource.Resource}, name, status.FieldErrors{
				status.InvalidValue(status.NewPath(ignoreReadErrorOption), true,
					"is exclusively used to delete corrupt object(s), try again by removing this option")})
		}
		h.Log.Warn("deleting an object that cannot be decoded, skipping finalizers and admission",
			"resource", r.GroupResource, "namespace", namespace, "name", name)
		resp, err := r.Store.OptimisticDelete(ctx, key, cur.KV.ModRevision, storage.DeleteOptions{})
		if err != nil {
			return registry.StorageError(err)
		}
		if resp.Succeeded {
			return nil
		}
	}
}
