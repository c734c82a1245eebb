package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// ErrNotPlannable is returned by [NewDefaulter] for a schema and Go type
// whose defaulting it cannot express without the JSON form; callers then
// default the JSON form with [Schema.ApplyDefaults].
var ErrNotPlannable = errors.New("schema: defaults not expressible on the Go type")

// Defaulter applies a schema's defaults to Go values of one type, with the
// outcome of [Schema.ApplyDefaults] on their JSON form decoded back into the
// type, but without encoding them: a plan built once walks only the paths
// that carry defaults.
//
// What "missing" means follows encoding/json: a property is missing from
// the JSON form when its field is a nil pointer, slice or map (encoded as
// null, or left out with omitempty), an empty value of a field tagged
// omitempty, or a zero value of a field tagged omitzero (see
// [OmitsZero]). A zero value of a field without either is present and
// is not defaulted; a nil of a field without omitempty is a null, which a
// nullable property keeps. An object that is missing is not created, so
// nothing below it is defaulted: a struct field tagged omitzero is how a
// Go type leaves one out (see [Defaulter.Hides] for telling {} from
// nothing).
type Defaulter struct {
	t    reflect.Type
	root *dnode // nil: nothing to default
}

// dnode is the plan for a value with defaults below it.
type dnode struct {
	kind   reflect.Kind // Pointer, Struct, Slice or Map
	elem   *dnode       // Pointer, Slice, Map: the plan of an element
	item   *dvalue      // Slice, Map: the default of a null element
	fields []dfield     // Struct
	// hides is set when a field that hides its presence (see dfield) is
	// at or below n.
	hides bool
}

// dfield is one struct field with a default of its own or below it.
type dfield struct {
	index     int
	name      string // the JSON name
	omitEmpty bool
	// omitZero is the omitzero test of the field, nil without the option.
	omitZero func(reflect.Value) bool
	// hides is set for a struct tagged omitzero: its zero value is what
	// decoding both {} and nothing gives.
	hides    bool
	nullable bool    // a null (nil without omitempty) stays
	def      *dvalue // nil: no default of its own
	node     *dnode  // nil: nothing below
}

// dvalue is a default decoded into a Go type once, at plan time.
type dvalue struct {
	v   reflect.Value
	raw []byte // the JSON to decode a fresh copy from, for types with references
}

// NewDefaulter builds the Defaulter of Go type t for schema s. The
// defaults of s itself are not applied, as [Schema.ApplyDefaults] does not
// apply them to its argument. It returns an error wrapping
// [ErrNotPlannable] when the type's JSON form is not what the plan can
// follow: custom marshalling, embedded structs, ",string" fields,
// arrays, interfaces and maps with named properties on paths with
// defaults, and defaults that do not decode into their field.
func NewDefaulter(s *Schema, t reflect.Type) (*Defaulter, error) {
	if t == nil {
		return nil, errors.New("schema: nil type")
	}
	n, err := planDefaults(s, t, typeName(t))
	if err != nil {
		return nil, err
	}
	return &Defaulter{t: t, root: n}, nil
}

// Empty reports whether there is nothing to default.
func (d *Defaulter) Empty() bool { return d == nil || d.root == nil }

// Default fills in the defaults of v, which must be settable and of the
// Defaulter's type, and reports whether it changed v. Memory reachable
// from v is never written: what changes is copied first, so v may share
// slices, maps and pointers with values that must not change.
func (d *Defaulter) Default(v reflect.Value) (bool, error) {
	return d.defaultValue(v, nil)
}

// defaultValue is Default, and DefaultDecoded when x is v's decoded JSON.
func (d *Defaulter) defaultValue(v reflect.Value, x any) (bool, error) {
	if d.Empty() {
		return false, nil
	}
	if v.Type() != d.t || !v.CanSet() {
		return false, fmt.Errorf("schema: Default needs a settable %s, got %s", d.t, v.Type())
	}
	nv, changed, err := d.root.apply(v, x)
	if changed && err == nil {
		v.Set(nv)
	}
	return changed, err
}

func notPlannable(where, why string) error {
	return fmt.Errorf("%w: %s: %s", ErrNotPlannable, where, why)
}

// defaultsBelow reports whether the children of s carry defaults.
func defaultsBelow(s *Schema) bool {
	if s == nil {
		return false
	}
	for _, p := range s.Properties {
		if hasDefault(p) {
			return true
		}
	}
	return hasDefault(s.Items) || hasDefault(s.AdditionalProperties)
}

// hasDefault reports whether s or anything below it has a default.
func hasDefault(s *Schema) bool {
	return s != nil && (s.Default != nil || defaultsBelow(s))
}

// marshalsItself reports whether values of t (or what t points to) have
// their own JSON or text encoding, whose shape the plan cannot know.
func marshalsItself(t reflect.Type) bool {
	for {
		if t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType) ||
			reflect.PointerTo(t).Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
			return true
		}
		if t.Kind() != reflect.Pointer {
			return false
		}
		t = t.Elem()
	}
}

// opaque reports whether the plan cannot tell from a value of t whether
// it encodes as null.
func opaque(t reflect.Type) bool {
	return marshalsItself(t) || deref(t).Kind() == reflect.Interface
}

// planDefaults plans the defaults below s for values of t: nil when there
// are none.
func planDefaults(s *Schema, t reflect.Type, where string) (*dnode, error) {
	if !defaultsBelow(s) {
		return nil, nil
	}
	if marshalsItself(t) {
		return nil, notPlannable(where, "the type encodes itself")
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem, err := planDefaults(s, t.Elem(), where)
		if elem == nil || err != nil {
			return nil, err
		}
		return &dnode{kind: reflect.Pointer, elem: elem, hides: elem.hides}, nil
	case reflect.Struct:
		return planStruct(s, t, where)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil, nil // a base64 string
		}
		return planElems(s.Items, t, where+"[]")
	case reflect.Map:
		if len(s.Properties) > 0 {
			return nil, notPlannable(where, "a map with named properties")
		}
		return planElems(s.AdditionalProperties, t, where+"[]")
	case reflect.Array, reflect.Interface:
		return nil, notPlannable(where, "defaults inside "+t.Kind().String())
	}
	return nil, nil // a scalar: its JSON form has nothing inside
}

// planElems plans the elements of a slice or map whose element schema is
// es: a default for null elements and the plan inside each.
func planElems(es *Schema, t reflect.Type, where string) (*dnode, error) {
	n := &dnode{kind: t.Kind()}
	if es != nil && es.Default != nil && !es.Nullable && nilable(t.Elem().Kind()) {
		if opaque(t.Elem()) {
			return nil, notPlannable(where, "the element type encodes itself")
		}
		d, err := decodeDefault(es, t.Elem(), where)
		if err != nil {
			return nil, err
		}
		n.item = d
	}
	elem, err := planDefaults(es, t.Elem(), where)
	if err != nil {
		return nil, err
	}
	n.elem = elem
	if n.elem == nil && n.item == nil {
		return nil, nil
	}
	n.setHides()
	return n, nil
}

// planStruct plans the fields of struct t that carry defaults.
func planStruct(s *Schema, t reflect.Type, where string) (*dnode, error) {
	n := &dnode{kind: reflect.Struct}
	seen := make(map[string]bool)
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fwhere := where + "." + sf.Name
		if sf.Anonymous && name == "" && deref(sf.Type).Kind() == reflect.Struct {
			return nil, notPlannable(fwhere, "an embedded struct")
		}
		if !sf.IsExported() {
			continue
		}
		name = cmpOr(name, sf.Name)
		if seen[name] {
			return nil, notPlannable(fwhere, "two fields encode as "+name)
		}
		seen[name] = true
		ps, ok := s.Properties[name]
		if !ok {
			// encoding/json matches names case-insensitively, so a
			// default for "Name" would land in the field "name".
			if foldedDefault(s, name) || hasDefault(s.AdditionalProperties) {
				return nil, notPlannable(fwhere, "defaults not under the field's own name")
			}
			continue
		}
		if !hasDefault(ps) {
			continue
		}
		if hasOption(opts, "string") {
			return nil, notPlannable(fwhere, "string option")
		}
		f, err := planField(ps, sf, i, name, hasOption(opts, "omitempty"), fwhere)
		if err != nil {
			return nil, err
		}
		n.fields = append(n.fields, f)
	}
	if len(n.fields) == 0 {
		return nil, nil
	}
	n.setHides()
	return n, nil
}

func planField(ps *Schema, sf reflect.StructField, index int, name string, omitEmpty bool, where string) (dfield, error) {
	f := dfield{index: index, name: name, omitEmpty: omitEmpty, omitZero: OmitsZero(sf), nullable: ps.Nullable}
	f.hides = f.omitZero != nil && sf.Type.Kind() == reflect.Struct
	if ps.Default != nil {
		if opaque(sf.Type) {
			return f, notPlannable(where, "the field's type encodes itself")
		}
		if sf.Type.Kind() == reflect.Array {
			return f, notPlannable(where, "a default for an array")
		}
		d, err := decodeDefault(ps, sf.Type, where)
		if err != nil {
			return f, err
		}
		f.def = d
	}
	node, err := planDefaults(ps, sf.Type, where)
	f.node = node
	return f, err
}

// foldedDefault reports whether s has a property with defaults that
// differs from name in case only.
func foldedDefault(s *Schema, name string) bool {
	for k, p := range s.Properties {
		if k != name && strings.EqualFold(k, name) && hasDefault(p) {
			return true
		}
	}
	return false
}

// decodeDefault decodes the default of s, itself defaulted, into type t,
// as decoding the defaulted JSON form would.
func decodeDefault(s *Schema, t reflect.Type, where string) (*dvalue, error) {
	x := copyJSON(s.Default)
	s.ApplyDefaults(x)
	raw, err := json.Marshal(x)
	if err != nil {
		return nil, notPlannable(where, err.Error())
	}
	p := reflect.New(t)
	if err := json.Unmarshal(raw, p.Interface()); err != nil {
		return nil, notPlannable(where, "the default does not decode: "+err.Error())
	}
	return &dvalue{v: p.Elem(), raw: raw}, nil
}

// fresh returns a copy of the default that shares no memory with it.
func (d *dvalue) fresh() (reflect.Value, error) {
	t := d.v.Type()
	switch {
	case scalarKind(t.Kind()):
		return d.v, nil
	case t.Kind() == reflect.Pointer && scalarKind(t.Elem().Kind()):
		if d.v.IsNil() {
			return d.v, nil
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(d.v.Elem())
		return p, nil
	}
	p := reflect.New(t)
	if err := json.Unmarshal(d.raw, p.Interface()); err != nil {
		return reflect.Value{}, err
	}
	return p.Elem(), nil
}

func scalarKind(k reflect.Kind) bool {
	_, _, ok := scalarType(k)
	return ok
}

func nilable(k reflect.Kind) bool {
	switch k {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	}
	return false
}

// apply returns v with the defaults of n filled in, a copy where anything
// changed. x is v's decoded JSON when known, else nil: it only tells
// structs that hide their presence apart.
func (n *dnode) apply(v reflect.Value, x any) (reflect.Value, bool, error) {
	switch n.kind {
	case reflect.Pointer:
		if v.IsNil() {
			return v, false, nil
		}
		nv, changed, err := n.elem.apply(v.Elem(), x)
		if !changed || err != nil {
			return v, false, err
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(nv)
		return p, true, nil
	case reflect.Struct:
		return n.applyStruct(v, x)
	case reflect.Slice:
		return n.applySlice(v, x)
	case reflect.Map:
		return n.applyMap(v, x)
	}
	return v, false, nil
}

func (n *dnode) applyStruct(v reflect.Value, x any) (reflect.Value, bool, error) {
	var out reflect.Value
	for i := range n.fields {
		f := &n.fields[i]
		var fx any
		if x != nil {
			fx = member(x, f.name)
		}
		nv, changed, err := f.apply(v.Field(f.index), fx)
		if err != nil {
			return v, false, err
		}
		if !changed {
			continue
		}
		if !out.IsValid() {
			out = reflect.New(v.Type()).Elem()
			out.Set(v)
		}
		out.Field(f.index).Set(nv)
	}
	if !out.IsValid() {
		return v, false, nil
	}
	return out, true, nil
}

// apply defaults one field's value: its own default when the JSON form
// leaves it out (or has a null it does not allow), else what is below;
// nothing below a value left out, as nothing below an absent object is
// defaulted. x is the value's decoded JSON, or nil: a struct that hides
// its presence is defaulted below when x holds it.
func (f *dfield) apply(v reflect.Value, x any) (reflect.Value, bool, error) {
	if f.missing(v) {
		if _, sent := x.(map[string]any); !f.hides || !sent {
			if f.def == nil {
				return v, false, nil
			}
			d, err := f.def.fresh()
			return d, err == nil, err
		}
	}
	if f.node == nil {
		return v, false, nil
	}
	return f.node.apply(v, x)
}

// missing reports whether the JSON form of the field's value v lacks the
// property or has a null the property does not allow.
func (f *dfield) missing(v reflect.Value) bool {
	return f.omitEmpty && isEmptyValue(v) || f.omitZero != nil && f.omitZero(v) || !f.nullable && encodesNull(v)
}

// encodesNull reports whether encoding/json encodes v as null: a nil
// pointer, slice or map, also behind pointers.
func encodesNull(v reflect.Value) bool {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return true
		}
		v = v.Elem()
	}
	return (v.Kind() == reflect.Slice || v.Kind() == reflect.Map) && v.IsNil()
}

// isEmptyValue is encoding/json's test for omitempty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// elem defaults one element of a slice or map, whose decoded JSON is x
// or nil.
func (n *dnode) elemValue(v reflect.Value, x any) (reflect.Value, bool, error) {
	if n.item != nil && encodesNull(v) {
		d, err := n.item.fresh()
		return d, err == nil, err
	}
	if n.elem == nil {
		return v, false, nil
	}
	return n.elem.apply(v, x)
}

func (n *dnode) applySlice(v reflect.Value, x any) (reflect.Value, bool, error) {
	var out reflect.Value
	for i := range v.Len() {
		var ix any
		if x != nil {
			ix = item(x, i, v.Len())
		}
		nv, changed, err := n.elemValue(v.Index(i), ix)
		if err != nil {
			return v, false, err
		}
		if !changed {
			continue
		}
		if !out.IsValid() {
			out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(out, v)
		}
		out.Index(i).Set(nv)
	}
	if !out.IsValid() {
		return v, false, nil
	}
	return out, true, nil
}

func (n *dnode) applyMap(v reflect.Value, x any) (reflect.Value, bool, error) {
	type change struct{ k, v reflect.Value }
	var changes []change
	for it := v.MapRange(); it.Next(); {
		var mx any
		if x != nil {
			mx = member(x, it.Key().String())
		}
		nv, changed, err := n.elemValue(it.Value(), mx)
		if err != nil {
			return v, false, err
		}
		if changed {
			changes = append(changes, change{it.Key(), nv})
		}
	}
	if len(changes) == 0 {
		return v, false, nil
	}
	out := reflect.MakeMapWithSize(v.Type(), v.Len())
	for it := v.MapRange(); it.Next(); {
		out.SetMapIndex(it.Key(), it.Value())
	}
	for _, c := range changes {
		out.SetMapIndex(c.k, c.v)
	}
	return out, true, nil
}
