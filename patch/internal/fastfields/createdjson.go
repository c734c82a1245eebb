package fastfields

import (
	"slices"
	"strconv"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	smd "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// A create's set is every field of the new object, so its FieldsV1 JSON
// follows the object: each field, list entry and set value present is a
// key, in the set's order, holding "." and what is below it when it has
// anything below. Writing that while walking the object saves building
// the set and encoding it.

// Names is a set of paths made of field names only (the fields a write
// cannot change, the fields never recorded), as a tree.
type Names struct {
	// Member is set when the path that leads here is in the set.
	Member bool
	// Children are the paths below, by field name.
	Children map[string]*Names
}

// NamesOf returns set as Names; ok is false when set holds a path with a
// list entry or value.
func NamesOf(set *fieldpath.Set) (n *Names, ok bool) {
	n = &Names{Children: map[string]*Names{}}
	ok = true
	set.Iterate(func(p fieldpath.Path) {
		at := n
		for _, pe := range p {
			if pe.FieldName == nil {
				ok = false
				return
			}
			next := at.Children[*pe.FieldName]
			if next == nil {
				next = &Names{Children: map[string]*Names{}}
				at.Children[*pe.FieldName] = next
			}
			at = next
		}
		at.Member = true
	})
	return n, ok
}

func (n *Names) child(name string) *Names {
	if n == nil {
		return nil
	}
	return n.Children[name]
}

// CreatedJSON appends to dst the FieldsV1 JSON of the set
// [Fields.Created] gives for obj, less the paths reset holds and those
// below them, and less the paths strip holds (either may be nil): what
// encoding that set with fieldpath.Set.ToJSON gives. ok is false when
// Created would not answer, or for values whose encoding the walk leaves
// to the set (names and keys that need escaping, keys and set values
// that are neither strings nor integers).
func (f Fields) CreatedJSON(dst []byte, obj map[string]any, reset, strip *Names) (out []byte, ok bool) {
	atom, ok := f.Type.Schema.Resolve(f.Type.TypeRef)
	if !ok || atom.Map == nil {
		return dst, false
	}
	w := jsonWalker{fields: fieldWalker{schema: f.Type.Schema}, buf: append(dst, '{')}
	if _, ok := w.fieldsOf(atom.Map, obj, reset, strip); !ok {
		return dst, false
	}
	return append(w.buf, '}'), true
}

// jsonWalker writes the FieldsV1 JSON of a new object along a schema.
type jsonWalker struct {
	fields fieldWalker
	buf    []byte
	// md, when not nil, is written as the metadata of root, the
	// object's own map, in place of what the object holds there (see
	// [Fields.CreatedJSONMeta]).
	md   *Metadata
	root *smd.Map
}

// fieldsOf writes the fields of a granular map, in name order (the set's
// order for field names); wrote reports whether it wrote any.
func (w *jsonWalker) fieldsOf(t *smd.Map, obj map[string]any, reset, strip *Names) (wrote, ok bool) {
	if declaredInOrder(t) {
		return w.declaredFields(t, obj, reset, strip)
	}
	var small [16]string // most maps: no allocation
	keys := small[:0]
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		tr, ok := fieldType(t, k)
		if !ok {
			return false, false
		}
		if wrote, ok = w.member(t, k, obj[k], tr, wrote, reset, strip); !ok {
			return false, false
		}
	}
	return wrote, true
}

// declaredInOrder reports whether t is a struct whose fields are all
// declared, in name order, as SMDSchema declares them: its fields can
// then be looked up in that order, rather than the object's keys sorted
// and each looked up in the schema.
func declaredInOrder(t *smd.Map) bool {
	if len(t.Fields) == 0 || t.ElementType != (smd.TypeRef{}) {
		return false
	}
	for i := 1; i < len(t.Fields); i++ {
		if t.Fields[i-1].Name >= t.Fields[i].Name {
			return false
		}
	}
	return true
}

// declaredFields is fieldsOf for a struct of declared fields in name
// order (see declaredInOrder). A key it does not declare fails the walk,
// as it fails fieldsOf.
func (w *jsonWalker) declaredFields(t *smd.Map, obj map[string]any, reset, strip *Names) (wrote, ok bool) {
	found := 0
	for i := range t.Fields {
		f := &t.Fields[i]
		v, present := obj[f.Name]
		if !present {
			continue
		}
		found++
		if wrote, ok = w.member(t, f.Name, v, f.Type, wrote, reset, strip); !ok {
			return false, false
		}
		if found == len(obj) {
			break
		}
	}
	return wrote, found == len(obj)
}

// field writes the field k of a map, holding v of type tr, after the
// fields before it (wrote is set when it wrote any); it reports whether
// any is now written.
func (w *jsonWalker) field(k string, v any, tr smd.TypeRef, wrote bool, reset, strip *Names) (bool, bool) {
	if !plainString(k) {
		return false, false
	}
	r, s := reset.child(k), strip.child(k)
	if r != nil && r.Member {
		// Left out, but checked as Created checks it.
		name := k
		return wrote, w.fields.node(&fieldpath.Set{}, fieldpath.PathElement{FieldName: &name}, v, tr)
	}
	mark := len(w.buf)
	if wrote {
		w.buf = append(w.buf, ',')
	}
	w.buf = append(w.buf, `"f:`...)
	w.buf = append(w.buf, k...)
	w.buf = append(w.buf, `":{`...)
	kept, ok := w.node(v, tr, s == nil || !s.Member, r, s)
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

// node writes what is below a key whose opening brace is written: "."
// when member, then its fields or entries. kept is false when nothing
// is to be written for the key at all.
func (w *jsonWalker) node(v any, tr smd.TypeRef, member bool, reset, strip *Names) (kept, ok bool) {
	atom, ok := w.fields.schema.Resolve(tr)
	if !ok || (atom.Map == nil && atom.List == nil && atom.Scalar == nil) {
		return false, false
	}
	switch t := v.(type) {
	case nil:
		return member, true
	case map[string]any:
		if atom.Map == nil {
			return false, false
		}
		if len(t) == 0 {
			return member, true
		}
		if atom.Map.ElementRelationship == smd.Atomic {
			return member, w.fields.check(v, tr)
		}
		return w.below(member, func() (bool, bool) { return w.fieldsOf(atom.Map, t, reset, strip) })
	case []any:
		if atom.List == nil {
			return false, false
		}
		switch {
		case len(t) == 0:
			return member, true
		case atom.List.ElementRelationship == smd.Atomic:
			return member, w.fields.check(v, tr)
		case atom.List.ElementRelationship == smd.Associative:
			return w.below(member, func() (bool, bool) { return w.items(atom.List, t) })
		}
		return false, false
	}
	return member, atom.Scalar != nil && scalarFits(*atom.Scalar, v)
}

// below writes "." when member, then what children writes; a member
// with nothing below is an empty object, as the set encodes it.
func (w *jsonWalker) below(member bool, children func() (wrote, ok bool)) (kept, ok bool) {
	start := len(w.buf)
	if member {
		// The children's first key follows a comma.
		w.buf = append(w.buf, `".":{},`...)
	}
	wrote, ok := children()
	if !ok {
		return false, false
	}
	if !wrote {
		w.buf = w.buf[:start]
		return member, true
	}
	return true, true
}

// items writes the entries of an associative list in the set's order.
func (w *jsonWalker) items(t *smd.List, list []any) (wrote, ok bool) {
	if wrote, handled, ok := w.simpleItems(t, list); handled || !ok {
		return wrote, ok
	}
	es, ok := sortedEntries(t, list)
	if !ok {
		return false, false
	}
	for _, e := range es {
		if wrote {
			w.buf = append(w.buf, ',')
		}
		if !w.itemKey(e.pe) {
			return false, false
		}
		w.buf = append(w.buf, ':', '{')
		if _, ok := w.node(list[e.at], t.ElementType, true, nil, nil); !ok {
			return false, false
		}
		w.buf = append(w.buf, '}')
		wrote = true
	}
	return wrote, true
}

// itemKey writes the key of a list entry, as a JSON string: its key
// fields ("k:{...}") or its value ("v:...").
func (w *jsonWalker) itemKey(pe fieldpath.PathElement) bool {
	switch {
	case pe.Key != nil:
		w.buf = append(w.buf, `"k:{`...)
		for i, f := range *pe.Key {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			if !plainString(f.Name) {
				return false
			}
			w.buf = append(w.buf, `\"`...)
			w.buf = append(w.buf, f.Name...)
			w.buf = append(w.buf, `\":`...)
			if !w.keyValue(f.Value.Unstructured()) {
				return false
			}
		}
		w.buf = append(w.buf, `}"`...)
		return true
	case pe.Value != nil:
		w.buf = append(w.buf, `"v:`...)
		if !w.keyValue((*pe.Value).Unstructured()) {
			return false
		}
		w.buf = append(w.buf, '"')
		return true
	}
	return false
}

// keyValue writes a string or integer as its JSON inside a JSON string.
func (w *jsonWalker) keyValue(v any) bool {
	switch t := v.(type) {
	case string:
		if !plainString(t) {
			return false
		}
		w.buf = append(w.buf, `\"`...)
		w.buf = append(w.buf, t...)
		w.buf = append(w.buf, `\"`...)
		return true
	case int64:
		w.buf = strconv.AppendInt(w.buf, t, 10)
		return true
	}
	return false
}

// plainString reports whether s is written as it is inside a JSON
// string: printable ASCII but for the characters encoders escape.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainBytes[s[i]] {
			return false
		}
	}
	return true
}

// plainBytes holds, for each byte, whether plainString lets it through:
// one load a byte rather than six comparisons. Never written after.
var plainBytes = func() (t [256]bool) {
	for c := 0x20; c <= 0x7e; c++ {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = false
	}
	return t
}()
