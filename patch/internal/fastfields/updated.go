package fastfields

import (
	"fmt"
	"slices"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	smd "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// An update moves to its manager the fields whose values it added or
// changed, and takes the fields it removed from everyone. Which fields
// those are is structured-merge-diff's comparison of the typed live and
// new objects; converting both objects to typed values (which validates
// them) and comparing them is most of the cost of an update. Walking the
// two decoded objects side by side along the schema finds the same three
// sets in one pass, and the set arithmetic that hands them out is then
// done as the library's Updater does it.

// Changed compares live with obj along the schema as
// typed.TypedValue.Compare does, or reports ok false to use the general
// path.
func (f Fields) Changed(live, obj map[string]any) (cmp *typed.Comparison, ok bool) {
	atom, ok := f.Type.Schema.Resolve(f.Type.TypeRef)
	if !ok || atom.Map == nil || len(live) == 0 || len(obj) == 0 {
		return nil, false
	}
	cmp = &typed.Comparison{Removed: fieldpath.NewSet(), Modified: fieldpath.NewSet(), Added: fieldpath.NewSet()}
	w := diffWalker{
		fields: fieldWalker{schema: f.Type.Schema},
		visit:  comparisonSink{cmp},
		path:   make(fieldpath.Path, 0, 8),
	}
	if !w.fieldsOf(atom.Map, live, obj) {
		return nil, false
	}
	return cmp, true
}

// diffWalker compares two decoded objects along a schema.
type diffWalker struct {
	fields fieldWalker // checks the inside of atomic values
	visit  Visitor
	path   fieldpath.Path
	names  []string // where the path's field names are kept
	// sideBySide walks equal values side by side too, as the reference
	// the tests check sameValue against.
	sideBySide bool
}

// name returns a pointer to a copy of k for a path element, from a slab
// rather than one allocation each (the sets keep the pointers).
func (w *diffWalker) name(k string) *string {
	if len(w.names) == cap(w.names) {
		w.names = make([]string, 0, 32)
	}
	w.names = append(w.names, k)
	return &w.names[len(w.names)-1]
}

// side is one object's value at a node; absent when the object has no
// such field or list entry (a null is present).
type side struct {
	v       any
	present bool
}

// node compares the values at the current path, of type tr.
func (w *diffWalker) node(tr smd.TypeRef, l, r side) bool {
	atom, ok := w.fields.schema.Resolve(tr)
	if !ok {
		return false
	}
	if l.v == nil && r.v == nil && atom.Map != nil && (atom.Scalar != nil || atom.List != nil) {
		// Nulls (or a null and nothing) in an untyped value: the
		// comparison takes them as an empty map, a leaf.
		return w.leaf(l, r)
	}
	if atom, ok = deduce(atom, l, r); !ok {
		return false
	}
	switch {
	case atom.Map != nil:
		return w.mapNode(atom.Map, tr, l, r)
	case atom.Scalar != nil:
		if !scalarOrNull(*atom.Scalar, l) || !scalarOrNull(*atom.Scalar, r) {
			return false
		}
		return w.leaf(l, r)
	case atom.List != nil:
		return w.listNode(atom.List, tr, l, r)
	}
	return false
}

// deduce picks the part of an untyped atom (one that may be a map, a list
// or a scalar) the values are; values of different kinds, and nulls, are
// compared twice over by the general path, so they are left to it.
func deduce(atom smd.Atom, l, r side) (smd.Atom, bool) {
	n := 0
	for _, p := range []bool{atom.Map != nil, atom.List != nil, atom.Scalar != nil} {
		if p {
			n++
		}
	}
	switch {
	case n == 0:
		return atom, false
	case n == 1:
		return atom, true
	}
	v := r.v
	if !r.present {
		v = l.v
	}
	if (l.present && l.v == nil) || (r.present && r.v == nil) || (l.present && r.present && kindOf(l.v) != kindOf(r.v)) {
		return atom, false
	}
	switch kindOf(v) {
	case 'm':
		return smd.Atom{Map: atom.Map}, atom.Map != nil
	case 'l':
		return smd.Atom{List: atom.List}, atom.List != nil
	case 's':
		return smd.Atom{Scalar: atom.Scalar}, atom.Scalar != nil
	}
	return atom, false
}

// kindOf classifies a decoded value: map, list, scalar, or 0.
func kindOf(v any) byte {
	switch v.(type) {
	case map[string]any:
		return 'm'
	case []any:
		return 'l'
	}
	if isScalar(v) {
		return 's'
	}
	return 0
}

func scalarOrNull(t smd.Scalar, s side) bool {
	return !s.present || s.v == nil || scalarFits(t, s.v)
}

// leaf records a value compared as a whole.
func (w *diffWalker) leaf(l, r side) bool {
	switch {
	case !l.present:
		return w.visit.Visit(Added, w.path)
	case !r.present:
		return w.visit.Visit(Removed, w.path)
	case !jsonEqual(l.v, r.v):
		return w.visit.Visit(Modified, w.path)
	}
	return true
}

// mapNode compares maps or structs; a null is an empty map.
func (w *diffWalker) mapNode(t *smd.Map, tr smd.TypeRef, l, r side) bool {
	lm, lok := l.v.(map[string]any)
	rm, rok := r.v.(map[string]any)
	if (l.v != nil && !lok) || (r.v != nil && !rok) {
		return false
	}
	if t.ElementRelationship == smd.Atomic || (len(lm) == 0 && len(rm) == 0) {
		if t.ElementRelationship == smd.Atomic && (!w.fields.check(l.v, tr) || !w.fields.check(r.v, tr)) {
			return false
		}
		return w.leaf(l, r)
	}
	if !w.fieldsOf(t, lm, rm) {
		return false
	}
	return w.presence(l, r)
}

// fieldsOf compares the fields of two maps of type t.
func (w *diffWalker) fieldsOf(t *smd.Map, lm, rm map[string]any) bool {
	// In key order, so that every insert into the result sets appends.
	var small [16]string // most maps: no allocation
	keys := small[:0]
	for k := range lm {
		keys = append(keys, k)
	}
	for k := range rm {
		if _, ok := lm[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		lv, lok := lm[k]
		rv, rok := rm[k]
		if !w.field(t, k, side{lv, lok}, side{rv, rok}) {
			return false
		}
	}
	return true
}

func (w *diffWalker) field(t *smd.Map, k string, l, r side) bool {
	ft, ok := fieldType(t, k)
	if !ok {
		return false
	}
	if ok, handled := w.sameValue(ft, l, r); handled {
		return ok
	}
	w.path = append(w.path, fieldpath.PathElement{FieldName: w.name(k)})
	ok = w.node(ft, l, r)
	w.path = w.path[:len(w.path)-1]
	return ok
}

// presence records a granular map or list that only one object has; one
// both have is recorded through what changed inside it.
func (w *diffWalker) presence(l, r side) bool {
	switch {
	case !l.present:
		return w.visit.Visit(Added, w.path)
	case !r.present:
		return w.visit.Visit(Removed, w.path)
	}
	return true
}

// listNode compares lists; a null is an empty list.
func (w *diffWalker) listNode(t *smd.List, tr smd.TypeRef, l, r side) bool {
	ll, lok := l.v.([]any)
	rl, rok := r.v.([]any)
	if (l.v != nil && !lok) || (r.v != nil && !rok) {
		return false
	}
	if t.ElementRelationship == smd.Atomic || (len(ll) == 0 && len(rl) == 0) {
		if t.ElementRelationship == smd.Atomic && (!w.fields.check(l.v, tr) || !w.fields.check(r.v, tr)) {
			return false
		}
		return w.leaf(l, r)
	}
	if t.ElementRelationship != smd.Associative || !w.items(t, ll, rl) {
		return false
	}
	return w.presence(l, r)
}

// items compares the entries of two associative lists by their names
// (keys, or values in a set). Both lists are walked in name order, merged:
// that matches entries in n log n, and every insert into the result sets
// appends rather than shifting what is already there.
func (w *diffWalker) items(t *smd.List, ll, rl []any) bool {
	lo, ok := sortedEntries(t, ll)
	if !ok {
		return false
	}
	ro, ok := sortedEntries(t, rl)
	if !ok {
		return false
	}
	for i, j := 0, 0; i < len(lo) || j < len(ro); {
		var c int
		switch {
		case i == len(lo):
			c = 1
		case j == len(ro):
			c = -1
		default:
			c = lo[i].pe.Compare(ro[j].pe)
		}
		var l, r side
		pe := fieldpath.PathElement{}
		if c <= 0 {
			l, pe = side{ll[lo[i].at], true}, lo[i].pe
			i++
		}
		if c >= 0 {
			r, pe = side{rl[ro[j].at], true}, ro[j].pe
			j++
		}
		if !w.item(t, pe, l, r) {
			return false
		}
	}
	return true
}

// entry is the name of an associative list's entry and its index.
type entry struct {
	pe fieldpath.PathElement
	at int
}

// sortedEntries names the entries of an associative list, in name order;
// ok is false when one has no name or two have the same (duplicates are
// compared as one atomic value, which the general path does).
func sortedEntries(t *smd.List, list []any) ([]entry, bool) {
	es := make([]entry, len(list))
	for i, item := range list {
		pe, ok := itemElement(t, item)
		if !ok {
			return nil, false
		}
		es[i] = entry{pe, i}
	}
	slices.SortFunc(es, func(a, b entry) int { return a.pe.Compare(b.pe) })
	for i := 1; i < len(es); i++ {
		if es[i-1].pe.Equals(es[i].pe) {
			return nil, false
		}
	}
	return es, true
}

func (w *diffWalker) item(t *smd.List, pe fieldpath.PathElement, l, r side) bool {
	if ok, handled := w.sameValue(t.ElementType, l, r); handled {
		return ok
	}
	w.path = append(w.path, pe)
	ok := w.node(t.ElementType, l, r)
	w.path = w.path[:len(w.path)-1]
	return ok
}

// jsonEqual compares two decoded JSON values as structured-merge-diff's
// value.Equals does: numbers by value whatever their form.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return float64(x) == y
		}
		return false
	case float64:
		switch y := b.(type) {
		case int64:
			return x == float64(y)
		case float64:
			return x == y
		}
		return false
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			u, ok := y[k]
			if !ok || !jsonEqual(v, u) {
				return false
			}
		}
		return true
	}
	return false
}

// Updated hands out the fields an update of live to obj changed as
// merge.Updater's Update does for manager, filter applied (nil for none):
// managers' entries of other versions are dropped, the others adapted to
// the schema, lose the fields the update changed or removed, and manager
// gets an entry of f.Version with the fields the update set, when there
// are any. managers is not changed. ok is false when the general path must
// do it.
func (f Fields) Updated(live, obj map[string]any, managers fieldpath.ManagedFields, manager string, filter fieldpath.Filter) (out fieldpath.ManagedFields, ok bool) {
	cmp, ok := f.Changed(live, obj)
	if !ok {
		return nil, false
	}
	out, err := f.reconcile(live, managers)
	if err != nil {
		return nil, false
	}
	if filter != nil {
		cmp = cmp.FilterFields(filter)
	}
	changed := cmp.Modified.Union(cmp.Added)
	for id, vs := range out {
		set := vs.Set()
		if c := set.Intersection(changed); !c.Empty() {
			set = set.Difference(c)
		}
		if !cmp.Removed.Empty() {
			set = set.Difference(cmp.Removed)
		}
		if set.Empty() {
			delete(out, id)
		} else if set != vs.Set() {
			out[id] = fieldpath.NewVersionedSet(set, vs.APIVersion(), vs.Applied())
		}
	}
	set := fieldpath.NewSet().Difference(cmp.Removed).Union(cmp.Modified).Union(cmp.Added)
	if filter != nil {
		set = filter.Filter(set)
	}
	if !set.Empty() {
		out[manager] = fieldpath.NewVersionedSet(set, f.Version, false)
	}
	return out, true
}

// reconcile drops the entries of other versions and adapts the others to
// the schema, as the Updater does before every update. The typed value is
// only a carrier of the schema there: it is not validated.
func (f Fields) reconcile(live map[string]any, fields fieldpath.ManagedFields) (fieldpath.ManagedFields, error) {
	tv := typed.AsTypedUnvalidated(value.NewValueInterface(live), f.Type.Schema, f.Type.TypeRef)
	out := make(fieldpath.ManagedFields, len(fields)+1)
	for id, vs := range fields {
		if vs.APIVersion() != f.Version {
			continue
		}
		set, err := typed.ReconcileFieldSetWithSchema(vs.Set(), tv)
		if err != nil {
			return nil, fmt.Errorf("reconciling %s: %w", id, err)
		}
		if set != nil {
			vs = fieldpath.NewVersionedSet(set, vs.APIVersion(), vs.Applied())
		}
		out[id] = vs
	}
	return out, nil
}
