package fastfields

import (
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// Change is how a field differs between the two objects of a walk.
type Change byte

// The changes [Fields.Changes] reports, as typed.Comparison sorts them.
const (
	Added Change = iota
	Modified
	Removed
)

// Visitor is told of every field a walk finds changed, in the order and
// with the paths typed.TypedValue.Compare would record them; it returns
// false to end the walk.
type Visitor interface {
	Visit(c Change, p fieldpath.Path) bool
}

// Changes walks live and obj as [Fields.Changed] does, telling v of each
// change instead of building the comparison. v must not keep p, which
// the walk reuses. ok is false when v ended the walk or the objects need
// the general path; either way, the walk may have stopped before
// checking every value.
func (f Fields) Changes(live, obj map[string]any, v Visitor) (ok bool) {
	atom, ok := f.Type.Schema.Resolve(f.Type.TypeRef)
	if !ok || atom.Map == nil || len(live) == 0 || len(obj) == 0 {
		return false
	}
	w := diffWalker{
		fields: fieldWalker{schema: f.Type.Schema},
		visit:  v,
		path:   make(fieldpath.Path, 0, 8),
	}
	return w.fieldsOf(atom.Map, live, obj)
}

// comparisonSink records the changes in a typed.Comparison.
type comparisonSink struct{ cmp *typed.Comparison }

func (s comparisonSink) Visit(c Change, p fieldpath.Path) bool {
	switch c {
	case Added:
		s.cmp.Added.Insert(p)
	case Modified:
		s.cmp.Modified.Insert(p)
	default:
		s.cmp.Removed.Insert(p)
	}
	return true
}
