package registry

import (
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/storage"
)

// LiveForm is the JSON form of the stored object without
// metadata.managedFields: built from old, the object decoded from it,
// by the kind's compiled plan, as kube-apiserver's field manager reads
// the typed stored object; or else read from live, its JSON.
func (r *Resource) LiveForm(old meta.Object, live []byte) (map[string]any, error) {
	if tree, ok := r.TypedFormWithoutManagedFields(old); ok {
		return tree, nil
	}
	return patch.DecodeObjectWithoutManagedFields(live)
}

// LiveJSON is the stored object cur's JSON for the field manager. Given
// the object's form (formKnown), the field manager only asks whether
// there is a stored object: a value stored as JSON is then handed over as
// it is stored, resourceVersion placeholder and all, rather than copied
// with the resourceVersion spliced in, a copy the size of the value made
// and dropped on every update.
func (r *Resource) LiveJSON(cur *storage.KeyValue, formKnown bool) ([]byte, error) {
	if formKnown && codec.Sniff(cur.Value) == codec.MediaTypeJSON {
		return cur.Value, nil
	}
	return r.AppendJSON(nil, cur)
}
