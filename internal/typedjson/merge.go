package typedjson

import (
	"bytes"
	"reflect"
	"slices"
	"unsafe"
)

// MergePatch applies the JSON merge patch (RFC 7386) patch to *v, a
// value of one of d's types as [Decoder.Decode] left it, and reports
// whether it could. When it could, *v is what decoding the merge of
// patch into v's encoding would give: objects merge into structs (a nil
// pointer to a struct starting from its zero value) and into maps of
// strings, a null zeroes its field or deletes its map key, and any other
// value replaces the field as decoding it into the zero field would.
//
// It gives up, leaving *v partly patched, on what it cannot say so for:
// anything Decode gives up on (unknown or repeated names, escaped names,
// values of the wrong type), a patch that is not an object, an object
// for a field that is not a struct or a map of strings, an array holding
// a null anywhere (a merge drops the nulls inside the objects of an
// array, which decoding does not), and numbers other than integers of at
// most 18 digits (see smallIntegers). The caller then patches v's
// encoding and decodes the result.
func (d *Decoder) MergePatch(patch []byte, v any) bool {
	e := (*eface)(unsafe.Pointer(&v))
	for i := range d.types {
		c := &d.types[i]
		if c.typ == e.typ {
			p := &parser{data: patch}
			return p.mergeObject(c.root, e.data) && p.end()
		}
	}
	return false
}

// mergeObject merges an object into the struct of plan n at ptr.
func (p *parser) mergeObject(n *node, ptr unsafe.Pointer) bool { return p.fields(n, ptr, true) }

// mergeValue merges one member's value into the field of plan n at ptr.
func (p *parser) mergeValue(n *node, ptr unsafe.Pointer) bool {
	switch p.next() {
	case 'n':
		if !p.literal("null") {
			return false
		}
		zero(n, ptr)
		return true
	case '{':
		return p.mergeInto(n, ptr)
	}
	start := p.pos
	zero(n, ptr)
	if !p.value(n, ptr) {
		return false
	}
	raw := p.data[start:p.pos]
	return smallIntegers(raw) && (raw[0] != '[' || !bytes.Contains(raw, []byte("null")))
}

// smallIntegers reports whether every number in the JSON value raw is an
// integer of at most 18 digits. A merge decodes the patch's numbers, and
// larger integers and numbers with a fraction or an exponent become
// float64s, which it encodes anew: decoding that may give another value
// than decoding the patch's own bytes.
func smallIntegers(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case c == '-' || '0' <= c && c <= '9':
			j := i
			if c == '-' {
				j++
			}
			end := digits(raw, j)
			if end-j > 18 || end < len(raw) && (raw[end] == '.' || raw[end] == 'e' || raw[end] == 'E') {
				return false
			}
			i = end - 1
		}
	}
	return true
}

// mergeInto merges an object into the field of plan n at ptr.
func (p *parser) mergeInto(n *node, ptr unsafe.Pointer) bool {
	switch n.kind {
	case kStruct:
		return p.mergeObject(n, ptr)
	case kPtr:
		if n.elem.kind != kStruct {
			return false
		}
		q := *(*unsafe.Pointer)(ptr)
		if q == nil {
			q = reflect.New(n.elem.typ).UnsafePointer()
			*(*unsafe.Pointer)(ptr) = q
		}
		return p.mergeObject(n.elem, q)
	case kStringMap:
		return p.mergeStringMap(ptr)
	}
	return false
}

// mergeStringMap merges an object into a map of strings to strings.
func (p *parser) mergeStringMap(ptr unsafe.Pointer) bool {
	if !p.open('{') {
		return false
	}
	m := (*map[string]string)(ptr)
	if *m == nil {
		*m = map[string]string{}
	}
	var small [8]string
	keys := small[:0] // the patch's, to refuse a repeated one
	for first := true; ; first = false {
		more, done := p.more('}', first)
		if !more {
			return done
		}
		raw, ok := p.key()
		if !ok || slices.Contains(keys, string(raw)) {
			return false
		}
		key := string(raw)
		keys = append(keys, key)
		if p.next() == 'n' {
			if !p.literal("null") {
				return false
			}
			delete(*m, key)
			continue
		}
		s, ok := p.str()
		if !ok {
			return false
		}
		(*m)[key] = s
	}
}

// zero sets the value of plan n at ptr to its zero value.
func zero(n *node, ptr unsafe.Pointer) {
	reflect.NewAt(n.typ, ptr).Elem().SetZero()
}
