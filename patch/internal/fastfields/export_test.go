package fastfields

import "sigs.k8s.io/structured-merge-diff/v6/fieldpath"

// SameAsWalked compares v with itself both ways: by same, and walked
// side by side; told is set when the walk told of a change.
func SameAsWalked(f Fields, v any) (same, walked, told bool) {
	w := diffWalker{fields: fieldWalker{schema: f.Type.Schema}, path: make(fieldpath.Path, 0, 8), sideBySide: true}
	var t tell
	w.visit = &t
	s := side{v, true}
	return w.same(f.Type.TypeRef, v), w.node(f.Type.TypeRef, s, s), bool(t)
}

// tell records that it was told of a change.
type tell bool

func (t *tell) Visit(Change, fieldpath.Path) bool {
	*t = true
	return true
}

// SameEqual compares a and b at the root by sameEqual, and by jsonEqual
// and same one after the other.
func SameEqual(f Fields, a, b any) (equal, same, wantEqual, wantSame bool) {
	w := diffWalker{fields: fieldWalker{schema: f.Type.Schema}}
	equal, same = w.sameEqual(f.Type.TypeRef, a, b)
	wantEqual = jsonEqual(a, b)
	return equal, same, wantEqual, wantEqual && w.same(f.Type.TypeRef, a)
}
