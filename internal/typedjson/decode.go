package typedjson

import (
	"encoding/json"
	"reflect"
	"unicode/utf8"
	"unsafe"
)

// maxDepth bounds the nesting the fast path follows; deeper documents go
// to the general decoder, which has its own limit.
const maxDepth = 1000

// Decode decodes data into v, a pointer of one of d's types to its zero
// value, and reports whether it could. When it could not, it leaves *v
// zero again for the general decoder to start from.
func (d *Decoder) Decode(data []byte, v any) bool {
	return d.decode(data, v, noSharing)
}

// DecodeShared is Decode with the decoded strings that are the document's
// bytes as they are (no escapes) sharing one copy of data, rather than
// each its own: one allocation instead of one per string, for a value
// that does not outlive the document much (a request's object), since
// any of its strings keeps the whole copy.
func (d *Decoder) DecodeShared(data []byte, v any) bool {
	return d.decode(data, v, copyShared)
}

// DecodeOwned is DecodeShared for data handed over: the decoded strings
// share data itself, not a copy, so data must not change afterwards.
func (d *Decoder) DecodeOwned(data []byte, v any) bool {
	return d.decode(data, v, ownShared)
}

// sharing says whether and how decoded strings share the document.
type sharing int

const (
	noSharing  sharing = iota // each string its own
	copyShared                // strings cut from one copy of the document
	ownShared                 // strings cut from the document itself
)

func (d *Decoder) decode(data []byte, v any, s sharing) bool {
	_, ok := d.decodeAt(data, v, s, true)
	return ok
}

// decodeAt decodes the object at the start of data into v and returns the
// index just past it; whole requires that only space follows it.
func (d *Decoder) decodeAt(data []byte, v any, s sharing, whole bool) (int, bool) {
	e := (*eface)(unsafe.Pointer(&v))
	for i := range d.types {
		c := &d.types[i]
		if c.typ != e.typ {
			continue
		}
		p := &parser{data: data}
		switch s {
		case copyShared:
			p.shared = string(data)
		case ownShared:
			p.shared = unsafe.String(unsafe.SliceData(data), len(data))
		}
		if p.object(c.root, e.data) && (!whole || p.end()) {
			return p.pos, true
		}
		reflect.NewAt(c.rt, e.data).Elem().SetZero()
		return 0, false
	}
	return 0, false
}

// parser walks one document. Every method returns false on anything the
// fast path does not decode.
type parser struct {
	data  []byte
	pos   int
	depth int
	// noSpace makes space between tokens an error (see Compact).
	noSpace bool
	// shared, when not empty, is a copy of data that plain strings are
	// cut from (see DecodeShared).
	shared string
}

// text returns b, a part of p.data, as a string: cut from p.shared when
// there is one, else copied.
func (p *parser) text(b []byte) string {
	if p.shared == "" {
		return string(b)
	}
	off := int(uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(unsafe.SliceData(p.data))))
	return p.shared[off : off+len(b)]
}

func (p *parser) space() {
	if p.noSpace || p.pos < len(p.data) && p.data[p.pos] > ' ' {
		return // compact JSON: no space to skip
	}
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// end reports whether only space is left.
func (p *parser) end() bool {
	p.space()
	return p.pos == len(p.data)
}

// next returns the next byte after space, or 0 at the end.
func (p *parser) next() byte {
	p.space()
	if p.pos < len(p.data) {
		return p.data[p.pos]
	}
	return 0
}

// value decodes one value of plan n into the memory at ptr.
func (p *parser) value(n *node, ptr unsafe.Pointer) bool {
	c := p.next()
	if n.kind == kSkip {
		return p.skipUnchecked()
	}
	if n.kind == kUnmarshaler {
		start := p.pos
		if !p.skip() {
			return false
		}
		u := reflect.NewAt(n.typ, ptr).Interface().(json.Unmarshaler)
		return u.UnmarshalJSON(p.data[start:p.pos]) == nil
	}
	if c == 'n' {
		return p.null(n, ptr)
	}
	switch n.kind {
	case kString:
		s, ok := p.str()
		*(*string)(ptr) = s
		return ok
	case kBool:
		return p.boolean((*bool)(ptr))
	case kInt:
		return p.integer(n.bits, ptr)
	case kUint:
		return p.unsigned(n.bits, ptr)
	case kFloat:
		return p.float(n.bits, ptr)
	case kStruct:
		return p.object(n, ptr)
	case kPtr:
		q := reflect.New(n.elem.typ).UnsafePointer()
		if !p.value(n.elem, q) {
			return false
		}
		*(*unsafe.Pointer)(ptr) = q
		return true
	case kSlice:
		return p.slice(n, ptr)
	case kStringMap:
		return p.stringMap(ptr)
	case kMap:
		return p.anyMap(n, ptr)
	}
	return false
}

// null reads a null: pointers, slices and maps become nil, other values
// are left as they are, as encoding/json does.
func (p *parser) null(n *node, ptr unsafe.Pointer) bool {
	if !p.literal("null") {
		return false
	}
	switch n.kind {
	case kPtr, kStringMap, kMap:
		*(*unsafe.Pointer)(ptr) = nil
	case kSlice:
		*(*[]byte)(ptr) = nil
	}
	return true
}

func (p *parser) literal(lit string) bool {
	if len(p.data)-p.pos < len(lit) || string(p.data[p.pos:p.pos+len(lit)]) != lit {
		return false
	}
	p.pos += len(lit)
	return true
}

func (p *parser) boolean(b *bool) bool {
	switch p.next() {
	case 't':
		*b = true
		return p.literal("true")
	case 'f':
		*b = false
		return p.literal("false")
	}
	return false
}

// open reads the opening byte of an object or array.
func (p *parser) open(c byte) bool {
	if p.next() != c || p.depth >= maxDepth {
		return false
	}
	p.pos++
	p.depth++
	return true
}

// more reads what follows a member or element: true when another one
// comes, false at the closing byte (done set) or on an error.
func (p *parser) more(closing byte, first bool) (more, done bool) {
	c := p.next()
	if c == closing {
		p.pos++
		p.depth--
		return false, true
	}
	if first {
		return true, false
	}
	if c != ',' {
		return false, false
	}
	p.pos++
	return true, false
}

// object decodes an object into the struct of plan n at ptr.
func (p *parser) object(n *node, ptr unsafe.Pointer) bool { return p.fields(n, ptr, false) }

// fields reads an object's members into the fields of the struct of plan
// n at ptr: decoded, or merged into what they hold when merge is set.
func (p *parser) fields(n *node, ptr unsafe.Pointer, merge bool) bool {
	if !p.open('{') {
		return false
	}
	var seen [maxFields / 64]uint64
	for first := true; ; first = false {
		more, done := p.more('}', first)
		if !more {
			return done
		}
		key, ok := p.key()
		if !ok {
			return false
		}
		f, ok := n.fields[string(key)]
		if !ok || seen[f.index/64]&(1<<(f.index%64)) != 0 {
			return false // unknown or repeated
		}
		seen[f.index/64] |= 1 << (f.index % 64)
		at := unsafe.Add(ptr, f.offset)
		if merge && !p.mergeValue(f.node, at) || !merge && !p.value(f.node, at) {
			return false
		}
	}
}

// key reads a member's name and the colon after it. A name with escapes
// is left to the general decoder.
func (p *parser) key() ([]byte, bool) {
	if p.next() != '"' {
		return nil, false
	}
	end, plain := p.scanString()
	if end < 0 || !plain {
		return nil, false
	}
	key := p.data[p.pos+1 : end-1]
	p.pos = end
	if p.next() != ':' {
		return nil, false
	}
	p.pos++
	return key, true
}

// str reads a string value.
func (p *parser) str() (string, bool) {
	if p.next() != '"' {
		return "", false
	}
	end, plain := p.scanString()
	if end < 0 {
		return "", false
	}
	raw := p.data[p.pos:end]
	p.pos = end
	if plain {
		return p.text(raw[1 : len(raw)-1]), true
	}
	// Escapes or invalid UTF-8: encoding/json's own unquoting.
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// scanString returns the index past the string at p.pos, or -1 when it
// is not valid JSON, and whether its bytes are its value: no escapes,
// valid UTF-8.
func (p *parser) scanString() (end int, plain bool) {
	b := p.data
	plain = true
	ascii := true
	for i := p.pos + 1; i < len(b); i++ {
		for i < len(b) && plainASCII[b[i]] {
			i++
		}
		if i == len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			if !ascii && !utf8.Valid(b[p.pos+1:i]) {
				plain = false
			}
			return i + 1, plain
		case c == '\\':
			plain = false
			i++
			if i >= len(b) {
				return -1, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !hex(b[i+1]) || !hex(b[i+2]) || !hex(b[i+3]) || !hex(b[i+4]) {
					return -1, false
				}
				i += 4
			default:
				return -1, false
			}
		case c < 0x20:
			return -1, false
		default: // c >= 0x80
			ascii = false
		}
	}
	return -1, false
}

// plainASCII marks the bytes a string holds as they are: printable
// ASCII but the quote and the backslash.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func hex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
