package fastfields

import (
	"slices"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	smd "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// A create owns every field of the new object: structured-merge-diff's
// comparison with an empty object reports each node of the new object as
// added. Walking the decoded object once along the schema builds that set
// directly, without converting both objects to typed values, comparing
// them and merging the result into the managers; on a Widget that is most
// of the cost of a create.

// Created returns the set a create of obj gives its manager, as
// merge.Updater's Update of an empty object to obj records it for the
// manager, filter applied (nil for none); ok is false when the object needs
// the general path.
func (f Fields) Created(obj map[string]any, filter fieldpath.Filter) (set *fieldpath.Set, ok bool) {
	atom, ok := f.Type.Schema.Resolve(f.Type.TypeRef)
	if !ok || atom.Map == nil {
		return nil, false
	}
	w := fieldWalker{schema: f.Type.Schema}
	set = &fieldpath.Set{}
	// The root is compared with the empty object, which is not nil, so it
	// is not itself a member: only its fields are.
	if !w.fields(set, atom.Map, obj) {
		return nil, false
	}
	if filter != nil {
		set = filter.Filter(set)
	}
	return set, true
}

// fieldWalker builds the field set of a new object along a schema.
type fieldWalker struct {
	schema *smd.Schema
}

// node records the field reached by pe (in parent) holding v of type tr,
// with everything below it.
func (w *fieldWalker) node(parent *fieldpath.Set, pe fieldpath.PathElement, v any, tr smd.TypeRef) bool {
	atom, ok := w.schema.Resolve(tr)
	if !ok || (atom.Map == nil && atom.List == nil && atom.Scalar == nil) {
		return false
	}
	switch t := v.(type) {
	case nil:
		// A null is a leaf whatever its type.
		parent.Members.Insert(pe)
		return true
	case map[string]any:
		if atom.Map == nil {
			return false
		}
		parent.Members.Insert(pe)
		if len(t) == 0 {
			return true
		}
		if atom.Map.ElementRelationship == smd.Atomic {
			return w.check(v, tr)
		}
		return w.fields(parent.Children.Descend(pe), atom.Map, t)
	case []any:
		if atom.List == nil {
			return false
		}
		parent.Members.Insert(pe)
		switch {
		case len(t) == 0:
			return true
		case atom.List.ElementRelationship == smd.Atomic:
			return w.check(v, tr)
		case atom.List.ElementRelationship == smd.Associative:
			return w.items(parent.Children.Descend(pe), atom.List, t)
		}
		return false
	}
	if atom.Scalar == nil || !scalarFits(*atom.Scalar, v) {
		return false
	}
	parent.Members.Insert(pe)
	return true
}

// fields records the fields of a granular map or struct, in key order so
// that every insert appends.
func (w *fieldWalker) fields(set *fieldpath.Set, t *smd.Map, obj map[string]any) bool {
	var small [16]string // most maps: no allocation
	keys := small[:0]
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		tr, ok := fieldType(t, k)
		if !ok {
			return false
		}
		name := k
		if !w.node(set, fieldpath.PathElement{FieldName: &name}, obj[k], tr) {
			return false
		}
	}
	return true
}

// items records the entries of an associative list, in name order so that
// every insert appends.
func (w *fieldWalker) items(set *fieldpath.Set, t *smd.List, list []any) bool {
	// A duplicate or unnamed entry is compared as one atomic value; leave
	// that to the general path.
	es, ok := sortedEntries(t, list)
	if !ok {
		return false
	}
	for _, e := range es {
		if !w.node(set, e.pe, list[e.at], t.ElementType) {
			return false
		}
	}
	return true
}

// check reports whether v fits tr, for the inside of an atomic value,
// which the comparison does not descend into but validation does.
func (w *fieldWalker) check(v any, tr smd.TypeRef) bool {
	if tr.NamedType != nil && *tr.NamedType == UntypedAtomic {
		return true // any JSON value fits
	}
	atom, ok := w.schema.Resolve(tr)
	if !ok || (atom.Map == nil && atom.List == nil && atom.Scalar == nil) {
		return false
	}
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		if atom.Map == nil {
			return false
		}
		for k, e := range t {
			ftr, ok := fieldType(atom.Map, k)
			if !ok || !w.check(e, ftr) {
				return false
			}
		}
		return true
	case []any:
		if atom.List == nil {
			return false
		}
		for _, e := range t {
			if atom.List.ElementRelationship == smd.Associative {
				if _, ok := itemElement(atom.List, e); !ok {
					return false
				}
			}
			if !w.check(e, atom.List.ElementType) {
				return false
			}
		}
		return true
	}
	return atom.Scalar != nil && scalarFits(*atom.Scalar, v)
}

// fieldType is the type of a map's key: its declared field, or the type
// of its other keys; ok is false when the schema declares neither.
func fieldType(t *smd.Map, key string) (smd.TypeRef, bool) {
	if f, ok := t.FindField(key); ok {
		return f.Type, true
	}
	if t.ElementType == (smd.TypeRef{}) {
		return smd.TypeRef{}, false
	}
	return t.ElementType, true
}

// itemElement names an entry of an associative list: by its key fields,
// or by its value in a set. Entries without every key, with keys that are
// not plain scalars or that are not scalars themselves in a set are left
// to the general path.
func itemElement(t *smd.List, item any) (fieldpath.PathElement, bool) {
	if len(t.Keys) == 0 {
		if item == nil || !isScalar(item) {
			return fieldpath.PathElement{}, false
		}
		v := value.NewValueInterface(item)
		return fieldpath.PathElement{Value: &v}, true
	}
	obj, ok := item.(map[string]any)
	if !ok {
		return fieldpath.PathElement{}, false
	}
	keys := make(value.FieldList, 0, len(t.Keys))
	for _, k := range t.Keys {
		kv, ok := obj[k]
		if !ok || kv == nil || !isScalar(kv) {
			return fieldpath.PathElement{}, false
		}
		keys = append(keys, value.Field{Name: k, Value: value.NewValueInterface(kv)})
	}
	keys.Sort()
	return fieldpath.PathElement{Key: &keys}, true
}

// isScalar reports whether v is one of the scalars decoded JSON holds.
func isScalar(v any) bool {
	switch v.(type) {
	case string, bool, int64, float64:
		return true
	}
	return false
}

// scalarFits reports whether a non-null decoded value validates as the
// scalar type t.
func scalarFits(t smd.Scalar, v any) bool {
	switch v.(type) {
	case string:
		return t == smd.String || t == smd.Untyped
	case bool:
		return t == smd.Boolean || t == smd.Untyped
	case int64, float64:
		return t == smd.Numeric || t == smd.Untyped
	}
	return false
}
