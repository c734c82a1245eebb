package typedjson

import (
	"reflect"
	"strconv"
	"unsafe"
)

// number reads a number's bytes, checked against JSON's grammar.
func (p *parser) number() ([]byte, bool) {
	p.space()
	b, i := p.data, p.pos
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i)
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		if j := digits(b, i+1); j > i+1 {
			i = j
		} else {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if j := digits(b, i); j > i {
			i = j
		} else {
			return nil, false
		}
	}
	num := b[p.pos:i]
	p.pos = i
	return num, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// parseInt parses an integer of at most 18 digits without allocating;
// ok is false for anything else (a fraction, an exponent, more digits),
// which strconv then judges.
func parseInt(num []byte) (n int64, ok bool) {
	neg := len(num) > 0 && num[0] == '-'
	d := num
	if neg {
		d = num[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return 0, false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func (p *parser) integer(bits int, ptr unsafe.Pointer) bool {
	num, ok := p.number()
	if !ok {
		return false
	}
	n, ok := parseInt(num)
	if !ok {
		var err error
		if n, err = strconv.ParseInt(string(num), 10, 64); err != nil {
			return false
		}
	}
	switch bits {
	case 8:
		*(*int8)(ptr) = int8(n)
	case 16:
		*(*int16)(ptr) = int16(n)
	case 32:
		*(*int32)(ptr) = int32(n)
	default:
		*(*int64)(ptr) = n
	}
	return bits == 64 || n == n<<(64-bits)>>(64-bits)
}

func (p *parser) unsigned(bits int, ptr unsafe.Pointer) bool {
	num, ok := p.number()
	if !ok {
		return false
	}
	n, err := strconv.ParseUint(string(num), 10, bits)
	if err != nil {
		return false
	}
	switch bits {
	case 8:
		*(*uint8)(ptr) = uint8(n)
	case 16:
		*(*uint16)(ptr) = uint16(n)
	case 32:
		*(*uint32)(ptr) = uint32(n)
	default:
		*(*uint64)(ptr) = n
	}
	return true
}

func (p *parser) float(bits int, ptr unsafe.Pointer) bool {
	num, ok := p.number()
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(string(num), bits)
	if err != nil {
		return false
	}
	if bits == 32 {
		*(*float32)(ptr) = float32(f)
	} else {
		*(*float64)(ptr) = f
	}
	return true
}

// slice decodes an array into a slice, grown as encoding/json grows it
// (an empty array is an empty slice, not nil).
func (p *parser) slice(n *node, ptr unsafe.Pointer) bool {
	if !p.open('[') {
		return false
	}
	var s reflect.Value
	var base unsafe.Pointer
	size := n.elem.typ.Size()
	count, capacity := 0, 0
	for {
		more, done := p.more(']', count == 0)
		if !more {
			if !done {
				return false
			}
			break
		}
		if count == capacity {
			capacity = max(4, 2*capacity)
			grown := reflect.MakeSlice(n.typ, capacity, capacity)
			if count > 0 {
				reflect.Copy(grown, s)
			}
			s, base = grown, grown.UnsafePointer()
		}
		if !p.value(n.elem, unsafe.Add(base, uintptr(count)*size)) {
			return false
		}
		count++
	}
	if base == nil {
		base = reflect.MakeSlice(n.typ, 0, 0).UnsafePointer()
	}
	*(*sliceHeader)(ptr) = sliceHeader{data: base, len: count, cap: capacity}
	return true
}

type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// count reads an array, checking it, and returns its length.
func (p *parser) count() (int, bool) {
	if !p.open('[') {
		return 0, false
	}
	for i := 0; ; i++ {
		more, done := p.more(']', i == 0)
		if !more {
			return i, done
		}
		if !p.skip() {
			return 0, false
		}
	}
}

// stringMap decodes an object into a map of strings to strings.
func (p *parser) stringMap(ptr unsafe.Pointer) bool {
	if !p.open('{') {
		return false
	}
	m := (*map[string]string)(ptr)
	if *m == nil {
		*m = map[string]string{}
	}
	for first := true; ; first = false {
		more, done := p.more('}', first)
		if !more {
			return done
		}
		key, ok := p.key()
		if !ok {
			return false
		}
		if _, dup := (*m)[string(key)]; dup {
			return false
		}
		var v string
		if p.next() == 'n' {
			ok = p.literal("null")
		} else {
			v, ok = p.str()
		}
		if !ok {
			return false
		}
		(*m)[p.text(key)] = v
	}
}

// anyMap decodes an object into a map of other values, by reflection.
func (p *parser) anyMap(n *node, ptr unsafe.Pointer) bool {
	if !p.open('{') {
		return false
	}
	m := reflect.NewAt(n.typ, ptr).Elem()
	if m.IsNil() {
		m.Set(reflect.MakeMap(n.typ))
	}
	kt := n.typ.Key()
	for first := true; ; first = false {
		more, done := p.more('}', first)
		if !more {
			return done
		}
		key, ok := p.key()
		if !ok {
			return false
		}
		k := reflect.ValueOf(string(key)).Convert(kt)
		if m.MapIndex(k).IsValid() {
			return false
		}
		e := reflect.New(n.elem.typ)
		if !p.value(n.elem, e.UnsafePointer()) {
			return false
		}
		m.SetMapIndex(k, e.Elem())
	}
}

// skip reads one value of any kind, checking it.
func (p *parser) skip() bool {
	switch c := p.next(); {
	case c == '"':
		end, _ := p.scanString()
		if end < 0 {
			return false
		}
		p.pos = end
		return true
	case c == '{':
		if !p.open('{') {
			return false
		}
		for first := true; ; first = false {
			more, done := p.more('}', first)
			if !more {
				return done
			}
			if p.next() != '"' {
				return false
			}
			if !p.skip() || p.next() != ':' {
				return false
			}
			p.pos++
			if !p.skip() {
				return false
			}
		}
	case c == '[':
		_, ok := p.count()
		return ok
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	default:
		_, ok := p.number()
		return ok
	}
}
