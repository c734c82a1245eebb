package fastfields

import (
	"slices"

	smd "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// A create's metadata is typed: writing the FieldsV1 of the fields a
// client sets on it (labels, annotations, generateName) straight from
// them saves building their JSON form, a map and a boxed value per label
// and annotation, only to walk it here.

// Metadata is the part of a new object's metadata whose fields its
// create records, for [Fields.CreatedJSONMeta].
type Metadata struct {
	GenerateName        string
	Labels, Annotations map[string]string
}

// CreatedJSONMeta is [Fields.CreatedJSON] of obj with md as the
// recorded fields of its metadata: obj's own "metadata" member is not
// read past its presence (it may hold the object's names only), and
// every other field of the object's metadata must be in strip. ok is
// false when CreatedJSON would decline, and when reset holds a path
// inside metadata.
func (f Fields) CreatedJSONMeta(dst []byte, obj map[string]any, md *Metadata, reset, strip *Names) (out []byte, ok bool) {
	atom, ok := f.Type.Schema.Resolve(f.Type.TypeRef)
	if _, present := obj["metadata"]; !ok || atom.Map == nil || !present || reset.child("metadata") != nil {
		return dst, false
	}
	w := jsonWalker{fields: fieldWalker{schema: f.Type.Schema}, buf: append(dst, '{'), md: md, root: atom.Map}
	if _, ok := w.fieldsOf(atom.Map, obj, reset, strip); !ok {
		return dst, false
	}
	return append(w.buf, '}'), true
}

// member writes the field k of the map t, as field does, but for the
// root's metadata when the walk writes it from md.
func (w *jsonWalker) member(t *smd.Map, k string, v any, tr smd.TypeRef, wrote bool, reset, strip *Names) (bool, bool) {
	if w.md != nil && t == w.root && k == "metadata" {
		return w.metadata(tr, wrote, strip.child(k))
	}
	return w.field(k, v, tr, wrote, reset, strip)
}

// metadata writes the root's metadata from md, after the fields before
// it, as field writes a map.
func (w *jsonWalker) metadata(tr smd.TypeRef, wrote bool, strip *Names) (bool, bool) {
	atom, ok := w.fields.schema.Resolve(tr)
	if !ok || atom.Map == nil || atom.Map.ElementRelationship == smd.Atomic {
		return false, false
	}
	mark := len(w.buf)
	if wrote {
		w.buf = append(w.buf, ',')
	}
	w.buf = append(w.buf, `"f:metadata":{`...)
	kept, ok := w.below(strip == nil || !strip.Member, func() (bool, bool) { return w.metadataFields(atom.Map, strip) })
	if !ok {
		return false, false
	}
	if !kept {
		w.buf = w.buf[:mark]
		return wrote, true
	}
	w.buf = append(w.buf, '}')
	return true, true
}

// metadataFields writes md's fields, in name order.
func (w *jsonWalker) metadataFields(t *smd.Map, strip *Names) (wrote, ok bool) {
	if wrote, ok = w.stringMap(t, "annotations", w.md.Annotations, wrote, strip); !ok {
		return false, false
	}
	if w.md.GenerateName != "" {
		if wrote, ok = w.stringField(t, "generateName", wrote, strip); !ok {
			return false, false
		}
	}
	return w.stringMap(t, "labels", w.md.Labels, wrote, strip)
}

// stringField writes the string field name of t, after the fields
// before it.
func (w *jsonWalker) stringField(t *smd.Map, name string, wrote bool, strip *Names) (bool, bool) {
	if s := strip.child(name); s != nil {
		return false, false // not stripped by the field manager
	}
	tr, ok := fieldType(t, name)
	if !ok {
		return false, false
	}
	if atom, ok := w.fields.schema.Resolve(tr); !ok || atom.Scalar == nil || !scalarFits(*atom.Scalar, "") {
		return false, false
	}
	if wrote {
		w.buf = append(w.buf, ',')
	}
	w.buf = append(w.buf, `"f:`...)
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, `":{}`...)
	return true, true
}

// stringMap writes the field name of t, a granular map of strings
// holding m, after the fields before it; an empty m is left out, as its
// JSON leaves it out.
func (w *jsonWalker) stringMap(t *smd.Map, name string, m map[string]string, wrote bool, strip *Names) (bool, bool) {
	if len(m) == 0 {
		return wrote, true
	}
	if s := strip.child(name); s != nil {
		return false, false // not stripped by the field manager
	}
	tr, ok := fieldType(t, name)
	if !ok {
		return false, false
	}
	atom, ok := w.fields.schema.Resolve(tr)
	if !ok || atom.Map == nil || atom.Map.ElementRelationship == smd.Atomic || len(atom.Map.Fields) != 0 {
		return false, false
	}
	elem, ok := w.fields.schema.Resolve(atom.Map.ElementType)
	if !ok || elem.Scalar == nil || !scalarFits(*elem.Scalar, "") {
		return false, false
	}
	var small [16]string // most maps: no allocation
	keys := small[:0]
	for k := range m {
		if !plainString(k) {
			return false, false
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if wrote {
		w.buf = append(w.buf, ',')
	}
	w.buf = append(w.buf, `"f:`...)
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, `":{".":{}`...)
	for _, k := range keys {
		w.buf = append(w.buf, `,"f:`...)
		w.buf = append(w.buf, k...)
		w.buf = append(w.buf, `":{}`...)
	}
	w.buf = append(w.buf, '}')
	return true, true
}
