package typedjson

import (
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"unicode/utf8"
	"unsafe"
)

// A form is what decoding a value's JSON encoding into any gives (maps,
// slices, strings, bools, int64), built from the value directly: what
// encoding/json's Marshal followed by such a decode would give, without
// writing and reading the JSON. Types it does not build (floats, []byte,
// interfaces, maps other than of strings to strings, text marshalers,
// pointers tagged omitzero) leave the form to that round trip.

type formKind uint8

const (
	fString formKind = iota
	fBool
	fInt
	fUint
	fStruct
	fPtr
	fSlice
	fStringMap
	fMarshaler
)

type formNode struct {
	kind   formKind
	typ    reflect.Type
	elem   *formNode
	fields []formField
}

type formField struct {
	name      string
	key       string // the name as Marshal writes it, and a colon
	offset    uintptr
	omitEmpty bool
	omitZero  bool // tagged omitzero
	// byMethod says omitzero asks the type's IsZero method; otherwise
	// the zero value of the type is left out.
	byMethod bool
	node     *formNode
}

// zero reports whether omitzero leaves out the field's value at p, as
// encoding/json decides it.
func (fd *formField) zero(p unsafe.Pointer) bool {
	v := reflect.NewAt(fd.node.typ, p)
	if fd.byMethod {
		return v.Interface().(interface{ IsZero() bool }).IsZero()
	}
	return v.Elem().IsZero()
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	isZeroerType      = reflect.TypeFor[interface{ IsZero() bool }]()
)

type formBuilder struct{ seen map[reflect.Type]*formNode }

func (b *formBuilder) build(t reflect.Type) (*formNode, error) {
	if n, ok := b.seen[t]; ok {
		return n, nil
	}
	n := &formNode{typ: t}
	b.seen[t] = n
	if t.Kind() != reflect.Pointer {
		if reflect.PointerTo(t).Implements(marshalerType) {
			if t.Kind() != reflect.Struct {
				return nil, fmt.Errorf("%v: marshals itself", t)
			}
			n.kind = fMarshaler // a struct, never empty to omitempty
			return n, nil
		}
		if reflect.PointerTo(t).Implements(textMarshalerType) {
			return nil, fmt.Errorf("%v: marshals itself as text", t)
		}
	}
	switch t.Kind() {
	case reflect.String:
		n.kind = fString
	case reflect.Bool:
		n.kind = fBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind = fInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n.kind = fUint
	case reflect.Struct:
		n.kind = fStruct
		if err := b.structFields(n, t, 0, map[string]bool{}); err != nil {
			return nil, err
		}
	case reflect.Pointer, reflect.Slice:
		if t.Name() != "" || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return nil, fmt.Errorf("%v: not supported", t)
		}
		e, err := b.build(t.Elem())
		if err != nil {
			return nil, err
		}
		n.kind, n.elem = fSlice, e
		if t.Kind() == reflect.Pointer {
			n.kind = fPtr
		}
	case reflect.Map:
		if t != reflect.TypeFor[map[string]string]() {
			return nil, fmt.Errorf("%v: not supported", t)
		}
		n.kind = fStringMap
	default:
		return nil, fmt.Errorf("%v: not supported", t)
	}
	return n, nil
}

// structFields adds t's fields at offset base, named as encoding/json
// names them.
func (b *formBuilder) structFields(n *formNode, t reflect.Type, base uintptr, names map[string]bool) error {
	return jsonFields(t, base, func(f jsonField) error {
		if names[f.name] {
			return fmt.Errorf("%v: field %q named twice", t, f.name)
		}
		names[f.name] = true
		ff := formField{name: f.name, key: quotedKey(f.name), offset: f.offset, omitEmpty: hasOption(f.opts, "omitempty")}
		if hasOption(f.opts, "omitzero") {
			if f.Type.Kind() == reflect.Pointer || f.Type.Kind() == reflect.Interface {
				return fmt.Errorf("%v.%s: omitzero on a pointer or interface", t, f.Name)
			}
			ff.omitZero, ff.byMethod = true, reflect.PointerTo(f.Type).Implements(isZeroerType)
		}
		fn, err := b.build(f.Type)
		if err != nil {
			return err
		}
		ff.node = fn
		n.fields = append(n.fields, ff)
		return nil
	})
}

// Form returns the form of v, a pointer of one of d's types, as
// decode(json.Marshal(v)) would give it; decode reads what the types'
// MarshalJSON methods write. ok is false when v's type, or a value in
// it (a string that is not UTF-8, an integer beyond int64), needs the
// round trip.
func (d *Decoder) Form(v any, decode func([]byte) (any, error)) (form map[string]any, ok bool) {
	form, _, ok = d.FormNulls(v, decode)
	return form, ok
}

// FormNulls is [Decoder.Form], and also reports whether the form holds a
// null anywhere in it: callers that treat nulls specially can then skip
// looking for them in a form that has none.
func (d *Decoder) FormNulls(v any, decode func([]byte) (any, error)) (form map[string]any, nulls, ok bool) {
	e := (*eface)(unsafe.Pointer(&v))
	for i := range d.types {
		c := &d.types[i]
		if c.typ == e.typ && c.form != nil {
			f := former{decode: decode}
			m, ok := f.object(c.form, e.data)
			return m, f.nulls, ok
		}
	}
	return nil, false, false
}

type former struct {
	decode func([]byte) (any, error)
	// nulls is set once a null is in the form.
	nulls bool
	// strs and ints hold the strings and integers the form's values
	// box, several to an allocation rather than one each (see box).
	strs  []string
	ints  []int64
	lists [][]any
}

// slab is how many strings or integers one allocation holds for a form.
const slab = 16

// stringType, int64Type and listType are the type words of strings,
// int64s and []any in an interface.
var (
	stringType = typeWord("")
	int64Type  = typeWord(int64(0))
	listType   = typeWord([]any(nil))
)

// boxString returns s as an interface value, as any(s) does, with its
// header kept in f.strs: a form's values are never written through, so
// they can share the slabs their headers sit in.
func (f *former) boxString(s string) any {
	if len(f.strs) == cap(f.strs) {
		f.strs = make([]string, 0, slab)
	}
	f.strs = append(f.strs, s)
	return box(stringType, unsafe.Pointer(&f.strs[len(f.strs)-1]))
}

// boxInt returns n as an interface value, as any(n) does; Go boxes
// integers below 256 without allocating, others are kept in f.ints.
func (f *former) boxInt(n int64) any {
	if n >= 0 && n < 256 {
		return n
	}
	if len(f.ints) == cap(f.ints) {
		f.ints = make([]int64, 0, slab)
	}
	f.ints = append(f.ints, n)
	return box(int64Type, unsafe.Pointer(&f.ints[len(f.ints)-1]))
}

// boxList returns l as an interface value, as any(l) does, with its
// header kept in f.lists.
func (f *former) boxList(l []any) any {
	if len(f.lists) == cap(f.lists) {
		f.lists = make([][]any, 0, slab)
	}
	f.lists = append(f.lists, l)
	return box(listType, unsafe.Pointer(&f.lists[len(f.lists)-1]))
}

// box makes the interface value of type typ whose value is at data.
func box(typ, data unsafe.Pointer) any {
	var v any
	e := (*eface)(unsafe.Pointer(&v))
	e.typ, e.data = typ, data
	return v
}

func (f *former) object(n *formNode, ptr unsafe.Pointer) (map[string]any, bool) {
	m := make(map[string]any, members(n, ptr))
	for i := range n.fields {
		fd := &n.fields[i]
		p := unsafe.Add(ptr, fd.offset)
		if fd.omitEmpty && empty(fd.node, p) {
			continue
		}
		if fd.omitZero && fd.zero(p) {
			continue
		}
		v, ok := f.value(fd.node, p)
		if !ok {
			return nil, false
		}
		m[fd.name] = v
	}
	return m, true
}

// members is about how many members the form of the struct at ptr has:
// its fields less those omitempty leaves out, so that a struct of many
// fields mostly empty (metadata) gets a map of its size.
func members(n *formNode, ptr unsafe.Pointer) int {
	count := 0
	for i := range n.fields {
		fd := &n.fields[i]
		if !fd.omitEmpty || !empty(fd.node, unsafe.Add(ptr, fd.offset)) {
			count++
		}
	}
	return count
}

// empty reports what encoding/json's omitempty omits.
func empty(n *formNode, p unsafe.Pointer) bool {
	switch n.kind {
	case fString:
		return len(*(*string)(p)) == 0
	case fBool:
		return !*(*bool)(p)
	case fInt, fUint:
		return isZeroInt(n.typ.Size(), p)
	case fPtr:
		return *(*unsafe.Pointer)(p) == nil
	case fStringMap:
		return len(*(*map[string]string)(p)) == 0
	case fSlice:
		return (*sliceHeader)(p).len == 0
	}
	return false
}

func isZeroInt(size uintptr, p unsafe.Pointer) bool {
	switch size {
	case 1:
		return *(*uint8)(p) == 0
	case 2:
		return *(*uint16)(p) == 0
	case 4:
		return *(*uint32)(p) == 0
	}
	return *(*uint64)(p) == 0
}

func (f *former) value(n *formNode, p unsafe.Pointer) (any, bool) {
	switch n.kind {
	case fString:
		s := *(*string)(p)
		return f.boxString(s), utf8.ValidString(s)
	case fBool:
		return *(*bool)(p), true
	case fInt:
		return f.boxInt(intAt(n.typ.Size(), p)), true
	case fUint:
		u := uintAt(n.typ.Size(), p)
		return f.boxInt(int64(u)), u <= math.MaxInt64
	case fStruct:
		return f.object(n, p)
	case fPtr:
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			f.nulls = true
			return nil, true
		}
		return f.value(n.elem, q)
	case fSlice:
		return f.slice(n, p)
	case fStringMap:
		return f.stringMap(*(*map[string]string)(p))
	case fMarshaler:
		b, err := reflect.NewAt(n.typ, p).Interface().(json.Marshaler).MarshalJSON()
		if err != nil {
			return nil, false
		}
		v, err := f.decode(b)
		f.nulls = f.nulls || holdsNull(v)
		return v, err == nil
	}
	return nil, false
}

func (f *former) slice(n *formNode, p unsafe.Pointer) (any, bool) {
	h := (*sliceHeader)(p)
	if h.data == nil {
		f.nulls = true
		return nil, true
	}
	out := make([]any, h.len)
	size := n.elem.typ.Size()
	for i := range out {
		v, ok := f.value(n.elem, unsafe.Add(h.data, uintptr(i)*size))
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return f.boxList(out), true
}

func (f *former) stringMap(m map[string]string) (any, bool) {
	if m == nil {
		f.nulls = true
		return nil, true
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return nil, false
		}
		out[k] = f.boxString(v)
	}
	return out, true
}

func intAt(size uintptr, p unsafe.Pointer) int64 {
	switch size {
	case 1:
		return int64(*(*int8)(p))
	case 2:
		return int64(*(*int16)(p))
	case 4:
		return int64(*(*int32)(p))
	}
	return *(*int64)(p)
}

func uintAt(size uintptr, p unsafe.Pointer) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

// holdsNull reports whether the decoded JSON value v is null or holds
// one, for what a MarshalJSON method wrote.
func holdsNull(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, x := range t {
			if holdsNull(x) {
				return true
			}
		}
	case []any:
		for _, x := range t {
			if holdsNull(x) {
				return true
			}
		}
	}
	return false
}
