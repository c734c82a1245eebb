package handlers

import (
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
)

// MergePatchTyped applies the merge patch body to doc, the stored object
// old's JSON, by the kind's compiled plan: doc decoded again (old itself
// goes on to the rest of the write) with the patch merged into the
// decoded object (see typedjson.Decoder.MergePatch). That is the object
// decoding the merge of body into old's JSON form gives, which the
// general path encodes and decodes again. ok is false when the plan does
// not do it (the kind's plan, a request in another version than the
// storage one, a patch it gives up on); the general path then runs.
func MergePatchTyped(r *registry.Resource, doc []byte, old meta.Object, body []byte) (meta.Object, bool) {
	if r.TypedJSON == nil || !r.IsStorage() || r.Versions != nil && old.GetTypeMeta().APIVersion != r.APIVersion {
		return nil, false
	}
	if _, ok := r.JSONCodec.(codec.JSON); !ok {
		return nil, false
	}
	obj := r.Kind.New()
	if !r.TypedJSON.DecodeShared(doc, obj) || !r.TypedJSON.MergePatch(body, obj) {
		return nil, false
	}
	return obj, true
}
