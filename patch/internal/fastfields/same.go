package fastfields

import (
	smd "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// An update changes a few fields of an object, so most of what the walk
// compares is equal on both sides, and an equal value holds no change.
// The walk still has to learn that it would take the value (that it fits
// the schema as the walk needs, or else the general path decides), but
// that needs no paths, no sorted keys and no list entries named as path
// elements, which are most of the cost of walking a value.

// sameValue compares, at a map's field or a list's entry of type tr, two
// present values that are equal: it answers what node would (no change,
// or ok false) without walking them side by side. handled is false when
// the values differ, or are scalars, which node compares as cheaply.
func (w *diffWalker) sameValue(tr smd.TypeRef, l, r side) (ok, handled bool) {
	if w.sideBySide || !l.present || !r.present {
		return false, false
	}
	switch l.v.(type) {
	case map[string]any, []any:
	default:
		return false, false
	}
	equal, same := w.sameEqual(tr, l.v, r.v)
	if !equal {
		return false, false
	}
	return same, true
}

// sameEqual is jsonEqual(l, r) and, when they are equal, same(tr, l), in
// one walk of both values rather than two of l.
func (w *diffWalker) sameEqual(tr smd.TypeRef, l, r any) (equal, same bool) {
	atom, ok := w.fields.schema.Resolve(tr)
	if !ok {
		return jsonEqual(l, r), false
	}
	if l == nil && atom.Map != nil && (atom.Scalar != nil || atom.List != nil) {
		return r == nil, true
	}
	s := side{l, true}
	if atom, ok = deduce(atom, s, s); !ok {
		return jsonEqual(l, r), false
	}
	switch {
	case atom.Map != nil:
		return w.sameEqualMap(atom.Map, tr, l, r)
	case atom.Scalar != nil:
		return jsonEqual(l, r), scalarOrNull(*atom.Scalar, s)
	case atom.List != nil:
		return w.sameEqualList(atom.List, tr, l, r)
	}
	return jsonEqual(l, r), false
}

// sameEqualMap is sameEqual for a map of type t.
func (w *diffWalker) sameEqualMap(t *smd.Map, tr smd.TypeRef, l, r any) (equal, same bool) {
	m, isMap := l.(map[string]any)
	switch {
	case l != nil && !isMap:
		return jsonEqual(l, r), false
	case t.ElementRelationship == smd.Atomic:
		equal = jsonEqual(l, r)
		return equal, equal && w.fields.check(l, tr)
	case l == nil:
		return r == nil, true
	}
	rm, ok := r.(map[string]any)
	if !ok || len(m) != len(rm) {
		return false, false
	}
	same = true
	for k, e := range m {
		u, ok := rm[k]
		if !ok {
			return false, false
		}
		var ft smd.TypeRef
		if same {
			ft, same = fieldType(t, k)
		}
		if !same {
			if !jsonEqual(e, u) {
				return false, false
			}
			continue
		}
		if equal, same = w.sameEqual(ft, e, u); !equal {
			return false, false
		}
	}
	return true, same
}

// sameEqualList is sameEqual for a list of type t.
func (w *diffWalker) sameEqualList(t *smd.List, tr smd.TypeRef, l, r any) (equal, same bool) {
	list, isList := l.([]any)
	switch {
	case l != nil && !isList:
		return jsonEqual(l, r), false
	case t.ElementRelationship == smd.Atomic:
		equal = jsonEqual(l, r)
		return equal, equal && w.fields.check(l, tr)
	case len(list) == 0:
		return jsonEqual(l, r), true
	}
	rl, ok := r.([]any)
	if !ok || len(list) != len(rl) {
		return false, false
	}
	same = t.ElementRelationship == smd.Associative && distinctNames(t, list)
	for i, e := range list {
		if !same {
			if !jsonEqual(e, rl[i]) {
				return false, false
			}
			continue
		}
		if equal, same = w.sameEqual(t.ElementType, e, rl[i]); !equal {
			return false, false
		}
	}
	return true, same
}

// same reports whether node(tr, s, s) would answer true for s the present
// value v (it then tells of no change).
func (w *diffWalker) same(tr smd.TypeRef, v any) bool {
	atom, ok := w.fields.schema.Resolve(tr)
	if !ok {
		return false
	}
	if v == nil && atom.Map != nil && (atom.Scalar != nil || atom.List != nil) {
		return true
	}
	s := side{v, true}
	if atom, ok = deduce(atom, s, s); !ok {
		return false
	}
	switch {
	case atom.Map != nil:
		m, isMap := v.(map[string]any)
		if v != nil && !isMap {
			return false
		}
		if atom.Map.ElementRelationship == smd.Atomic {
			return w.fields.check(v, tr)
		}
		for k, e := range m {
			ft, ok := fieldType(atom.Map, k)
			if !ok || !w.same(ft, e) {
				return false
			}
		}
		return true
	case atom.Scalar != nil:
		return scalarOrNull(*atom.Scalar, s)
	case atom.List != nil:
		return w.sameList(atom.List, tr, v)
	}
	return false
}

// sameList is same for a list of type t.
func (w *diffWalker) sameList(t *smd.List, tr smd.TypeRef, v any) bool {
	list, isList := v.([]any)
	switch {
	case v != nil && !isList:
		return false
	case t.ElementRelationship == smd.Atomic:
		return w.fields.check(v, tr)
	case len(list) == 0:
		return true
	case t.ElementRelationship != smd.Associative || !distinctNames(t, list):
		return false
	}
	for _, e := range list {
		if !w.same(t.ElementType, e) {
			return false
		}
	}
	return true
}

// maxPairwise is the longest list whose names distinctNames compares
// pair by pair; longer ones are sorted.
const maxPairwise = 16

// distinctNames reports whether sortedEntries would name every entry of
// an associative list and find no two with the same name. Lists named by
// one key (or sets) of up to maxPairwise entries, the common ones, are
// checked pair by pair on the names' values, which allocates nothing.
func distinctNames(t *smd.List, list []any) bool {
	if len(t.Keys) > 1 || len(list) > maxPairwise {
		_, ok := sortedEntries(t, list)
		return ok
	}
	var names [maxPairwise]any
	for i, item := range list {
		name := item
		if len(t.Keys) == 1 {
			obj, ok := item.(map[string]any)
			if !ok {
				return false
			}
			name = obj[t.Keys[0]] // a missing key is nil, as refused
		}
		if name == nil || !isScalar(name) {
			return false
		}
		for _, prev := range names[:i] {
			if jsonEqual(prev, name) {
				return false
			}
		}
		names[i] = name
	}
	return true
}
