package typedjson

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"unsafe"

	"github.com/kapi-dev/kapi/internal/jsonstr"
)

// The plan that builds a value's form writes its JSON too, as
// encoding/json's Marshal (HTML escaping on) writes it: fields in the
// order Marshal takes them, the same omissions, strings escaped the same
// way, map keys sorted, MarshalJSON output kept when it is compact. A
// write encodes its object on every request, and Marshal spends most of
// that time finding its way through the value by reflection.

// AppendJSON appends the JSON encoding of v, a pointer of one of d's
// types, to dst: what json.Marshal(v) gives. ok is false, and dst is
// returned as it was, when v's type has no plan or a value in it needs
// Marshal (MarshalJSON output that is not compact, or that fails).
func (d *Decoder) AppendJSON(dst []byte, v any) (out []byte, ok bool) {
	out, _, _, ok = d.AppendJSONMember(dst, v, "")
	return out, ok
}

// AppendJSONMember is [Decoder.AppendJSON], and also tells where in out
// the value of v's member named member was written: out[start:end], or
// start and end -1 when it was left out (or member is "").
func (d *Decoder) AppendJSONMember(dst []byte, v any, member string) (out []byte, start, end int, ok bool) {
	e := (*eface)(unsafe.Pointer(&v))
	for i := range d.types {
		c := &d.types[i]
		if c.typ == e.typ && c.form != nil && e.data != nil {
			w := writer{buf: dst, member: member, start: -1, end: -1}
			if !w.value(c.form, e.data, 0) {
				return dst, -1, -1, false
			}
			return w.buf, w.start, w.end, true
		}
	}
	return dst, -1, -1, false
}

// writer writes one value. When member is not "", start and end are
// where the value of the top object's member of that name is written.
type writer struct {
	buf        []byte
	member     string
	start, end int
}

func (w *writer) value(n *formNode, p unsafe.Pointer, depth int) bool {
	if depth > maxDepth {
		return false // Marshal's cycle check; no plan goes this deep
	}
	switch n.kind {
	case fString:
		w.buf = jsonstr.Append(w.buf, *(*string)(p))
	case fBool:
		w.buf = strconv.AppendBool(w.buf, *(*bool)(p))
	case fInt:
		w.buf = strconv.AppendInt(w.buf, intAt(n.typ.Size(), p), 10)
	case fUint:
		w.buf = strconv.AppendUint(w.buf, uintAt(n.typ.Size(), p), 10)
	case fStruct:
		return w.object(n, p, depth)
	case fPtr:
		q := *(*unsafe.Pointer)(p)
		if q == nil {
			w.buf = append(w.buf, "null"...)
			return true
		}
		return w.value(n.elem, q, depth+1)
	case fSlice:
		return w.slice(n, p, depth)
	case fStringMap:
		w.stringMap(*(*map[string]string)(p))
	case fMarshaler:
		b, err := reflect.NewAt(n.typ, p).Interface().(json.Marshaler).MarshalJSON()
		if err != nil || !Compact(b) {
			return false
		}
		w.buf = append(w.buf, b...)
	default:
		return false
	}
	return true
}

func (w *writer) object(n *formNode, p unsafe.Pointer, depth int) bool {
	w.buf = append(w.buf, '{')
	first := true
	for i := range n.fields {
		fd := &n.fields[i]
		fp := unsafe.Add(p, fd.offset)
		if fd.omitEmpty && empty(fd.node, fp) {
			continue
		}
		if fd.omitZero && fd.zero(fp) {
			continue
		}
		if !first {
			w.buf = append(w.buf, ',')
		}
		first = false
		w.buf = append(w.buf, fd.key...)
		start := len(w.buf)
		if !w.value(fd.node, fp, depth+1) {
			return false
		}
		if depth == 0 && w.member != "" && fd.name == w.member {
			w.start, w.end = start, len(w.buf)
		}
	}
	w.buf = append(w.buf, '}')
	return true
}

func (w *writer) slice(n *formNode, p unsafe.Pointer, depth int) bool {
	h := (*sliceHeader)(p)
	if h.data == nil {
		w.buf = append(w.buf, "null"...)
		return true
	}
	w.buf = append(w.buf, '[')
	size := n.elem.typ.Size()
	for i := range h.len {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		if !w.value(n.elem, unsafe.Add(h.data, uintptr(i)*size), depth+1) {
			return false
		}
	}
	w.buf = append(w.buf, ']')
	return true
}

func (w *writer) stringMap(m map[string]string) {
	if m == nil {
		w.buf = append(w.buf, "null"...)
		return
	}
	var arr [16]string
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.buf = append(w.buf, '{')
	for i, k := range keys {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = append(jsonstr.Append(w.buf, k), ':')
		w.buf = jsonstr.Append(w.buf, m[k])
	}
	w.buf = append(w.buf, '}')
}

// quotedKey is a field's name as Marshal writes it, with the colon.
func quotedKey(name string) string {
	return string(jsonstr.Append(nil, name)) + ":"
}
