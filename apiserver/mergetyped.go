package apiserver

import (
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
)

// mergePatchTyped applies the merge patch body to doc, the stored object
// old's JSON, by the kind's compiled plan: doc decoded again (old itself
// goes on to the rest of the write) with the patch merged into the
// decoded object (see typedjson.Decoder.MergePatch). That is the object
// decoding the merge of body into old's JSON form gives, which the
// general path encodes and decodes again. ok is false when the plan does
// not do it (the kind's plan, a request in another version than the
// storage one, a patch it gives up on); the general path then runs.
func (r *resource) mergePatchTyped(doc []byte, old meta.Object, body []byte) (meta.Object, bool) {
	if r.typedJSON == nil || !r.isStorage() || r.versions != nil && old.GetTypeMeta().APIVersion != r.apiVersion {
		return nil, false
	}
	if _, ok := r.jsonCodec.(codec.JSON); !ok {
		return nil, false
	}
	obj := r.kind.New()
	if !r.typedJSON.DecodeShared(doc, obj) || !r.typedJSON.MergePatch(body, obj) {
		return nil, false
	}
	return obj, true
}
