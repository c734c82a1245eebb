// Package typedjson decodes JSON into a kind's Go type by a plan compiled
// once per type (field tables and offsets; at run time reflect only
// allocates pointers and slices, fills maps other than of strings, and
// calls the types' own JSON methods): the server's fast path for request
// bodies and stored values. It decodes what
// sigs.k8s.io/json decodes (case-sensitive names, integers, the types'
// own UnmarshalJSON methods) and gives up on anything else: unknown or
// repeated fields, a value of the wrong type, a syntax error, an escaped
// name. A caller then decodes with the general decoder, which also words
// the error or the strict-decoding problems, so that results and errors
// are the general decoder's.
//
// The same compiled types give a value's form ([Decoder.Form]: its JSON
// as decoded into maps, built without encoding it) and its encoding
// ([Decoder.AppendJSON]: what encoding/json's Marshal writes), and
// [Compact] tells JSON that encoding/json would write back unchanged.
// [Decoder.DecodeShared] decodes with strings that share one copy of the
// document, for values that do not outlive it by much.
package typedjson

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unsafe"
)

// kind is what a node decodes.
type kind uint8

const (
	kString kind = iota
	kBool
	kInt
	kUint
	kFloat
	kStruct
	kPtr
	kSlice
	kStringMap // map[string]string, or types of that shape
	kMap       // any other map with string keys
	kUnmarshaler
	kSkip // any JSON value, read and dropped (see Decoder.Skipping)
)

// node is the plan of one Go type.
type node struct {
	kind kind
	typ  reflect.Type
	// bits is the size of an integer or float in bits.
	bits int
	// elem is the plan of a pointer's, slice's or map's element.
	elem *node
	// fields are a struct's fields by JSON name, promoted fields of
	// embedded structs included.
	fields map[string]field
}

// field is one field of a struct: where it is and its plan.
type field struct {
	offset uintptr
	index  int // its bit in the set of fields seen
	node   *node
}

// maxFields bounds the fields of one struct: the fields an object names
// are tracked in a fixed set of bits.
const maxFields = 128

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// Decoder decodes JSON into values of the types it was compiled for.
type Decoder struct {
	types []compiled
}

// compiled is the plan of one pointer type.
type compiled struct {
	typ  unsafe.Pointer // the type word of an interface holding *T
	rt   reflect.Type   // T
	root *node
	form *formNode // nil when T's form is left to the round trip
}

// New compiles a decoder for the given types, each a pointer to a struct
// whose zero value is what a decode starts from. Types it cannot
// compile (custom text unmarshalers, interfaces, arrays, embedded
// pointers, the string option, fields hidden by others of the same name)
// are left out: Decode gives up on them at once.
func New(types ...reflect.Type) *Decoder {
	d := &Decoder{}
	for _, t := range types {
		if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
			continue
		}
		b := builder{seen: map[reflect.Type]*node{}}
		root, err := b.build(t.Elem())
		if err != nil || root.kind != kStruct {
			continue
		}
		c := compiled{typ: typeWord(reflect.New(t.Elem()).Interface()), rt: t.Elem(), root: root}
		fb := formBuilder{seen: map[reflect.Type]*formNode{}}
		if form, err := fb.build(t.Elem()); err == nil && form.kind == fStruct {
			c.form = form
		}
		d.types = append(d.types, c)
	}
	return d
}

// Len returns how many types d compiled.
func (d *Decoder) Len() int { return len(d.types) }

type eface struct{ typ, data unsafe.Pointer }

func typeWord(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

type builder struct {
	seen map[reflect.Type]*node
}

func (b *builder) build(t reflect.Type) (*node, error) {
	if n, ok := b.seen[t]; ok {
		return n, nil
	}
	n := &node{typ: t}
	b.seen[t] = n
	if t.Kind() != reflect.Pointer {
		if reflect.PointerTo(t).Implements(unmarshalerType) {
			n.kind = kUnmarshaler
			return n, nil
		}
		if reflect.PointerTo(t).Implements(textUnmarshalerType) {
			return nil, fmt.Errorf("%v: unmarshals itself from text", t)
		}
	}
	switch t.Kind() {
	case reflect.String:
		if t.Name() == "Number" {
			// json.Number and its kin check a string's contents.
			return nil, fmt.Errorf("%v: not supported", t)
		}
		n.kind = kString
	case reflect.Bool:
		n.kind = kBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind, n.bits = kInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n.kind, n.bits = kUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		n.kind, n.bits = kFloat, t.Bits()
	case reflect.Struct:
		n.kind, n.fields = kStruct, map[string]field{}
		if err := b.structFields(n, t, 0); err != nil {
			return nil, err
		}
	case reflect.Pointer:
		if t.Name() != "" || t.Elem().Kind() == reflect.Pointer {
			return nil, fmt.Errorf("%v: pointer not supported", t)
		}
		return n, b.elem(n, kPtr, t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil, fmt.Errorf("%v: bytes not supported", t)
		}
		return n, b.elem(n, kSlice, t.Elem())
	case reflect.Map:
		return n, b.mapNode(n, t)
	default:
		return nil, fmt.Errorf("%v: not supported", t)
	}
	return n, nil
}

func (b *builder) elem(n *node, k kind, t reflect.Type) error {
	e, err := b.build(t)
	if err != nil {
		return err
	}
	n.kind, n.elem = k, e
	return nil
}

// mapNode plans a map whose keys are plain strings.
func (b *builder) mapNode(n *node, t reflect.Type) error {
	kt := t.Key()
	if kt.Kind() != reflect.String || reflect.PointerTo(kt).Implements(textUnmarshalerType) {
		return fmt.Errorf("%v: map key not supported", t)
	}
	if err := b.elem(n, kMap, t.Elem()); err != nil {
		return err
	}
	if t == reflect.TypeFor[map[string]string]() {
		n.kind = kStringMap
	}
	return nil
}

// structFields adds t's fields, at offset base in the outer struct, as
// encoding/json names them.
func (b *builder) structFields(n *node, t reflect.Type, base uintptr) error {
	return jsonFields(t, base, func(f jsonField) error {
		if _, dup := n.fields[f.name]; dup || len(n.fields) == maxFields {
			return fmt.Errorf("%v: field %q named twice, or too many fields", t, f.name)
		}
		fn, err := b.build(f.Type)
		if err != nil {
			return err
		}
		n.fields[f.name] = field{offset: f.offset, index: len(n.fields), node: fn}
		return nil
	})
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// validTag reports whether encoding/json takes name from a tag, as its
// own check does.
func validTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
