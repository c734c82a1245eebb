package protobuf

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/kapi-dev/kapi/meta"
)

// encoder writes one object in two passes over the same plan: the first
// computes the size of every nested message (in the order they will be
// written) and sorts map keys, the second writes, taking each length from
// the first. Every message is thus sized once, whatever its depth.
type encoder struct {
	ser     *Serializer
	sizes   []int
	next    int
	entries []mapEntry // the entries of every map, each map's sorted by key
	nextE   int
	proxies []reflect.Value // the proxy of every Proxied value, invalid for none
	nextX   int
	err     error
}

// mapEntry is one map entry read in the first pass. Strings and bytes are
// kept as such, other values as a copy.
type mapEntry struct {
	key string
	str string
	raw []byte
	val reflect.Value
}

func (e *encoder) reset() {
	e.sizes, e.next = e.sizes[:0], 0
	clear(e.entries)
	e.entries, e.nextE = e.entries[:0], 0
	clear(e.proxies)
	e.proxies, e.nextX = e.proxies[:0], 0
	e.err = nil
}

// envelope appends v in its envelope.
func (e *encoder) envelope(dst []byte, v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, fmt.Errorf("protobuf: cannot encode a nil %T", v)
		}
		rv = rv.Elem()
	}
	p, err := e.ser.planOf(rv.Type())
	if err != nil {
		return nil, err
	}
	var apiVersion, kind string
	if p.typeMeta >= 0 {
		tm := rv.Field(p.typeMeta)
		kind, apiVersion = tm.Field(0).String(), tm.Field(1).String()
	}
	n := e.sizeMessage(p, rv)
	if e.err != nil {
		return nil, e.err
	}
	if dst == nil {
		dst = make([]byte, 0, envelopeSize(apiVersion, kind, n))
	}
	return appendUnknown(dst, apiVersion, kind, n, func(b []byte) ([]byte, error) {
		b = e.appendMessage(b, p, rv)
		return b, e.err
	})
}

func (e *encoder) sizeMessage(p *plan, v reflect.Value) int {
	n := 0
	for i := range p.fields {
		f := &p.fields[i]
		fv := v.Field(f.index)
		switch f.shape {
		case single:
			if f.val.kind == kBytes && fv.IsNil() {
				continue
			}
			if f.val.kind == kProxy {
				n += e.sizeProxyField(f, fv)
				continue
			}
			n += len(f.tag) + e.sizeValue(&f.val, fv)
		case pointer:
			if !fv.IsNil() {
				n += len(f.tag) + e.sizeValue(&f.val, fv.Elem())
			}
		case repeated:
			for j, l := 0, fv.Len(); j < l; j++ {
				n += len(f.tag) + e.sizeValue(&f.val, fv.Index(j))
			}
		case mapped:
			n += e.sizeMap(f, fv)
		}
	}
	return n
}

// sizeMap sizes the entries of a map field, each a message {key=1,
// value=2}, and keeps them sorted by key for the second pass.
func (e *encoder) sizeMap(f *field, m reflect.Value) int {
	if m.Len() == 0 {
		return 0
	}
	start := len(e.entries)
	key := reflect.New(m.Type().Key()).Elem()
	var val reflect.Value
	if f.val.kind == kString || f.val.kind == kBytes {
		val = reflect.New(f.val.typ).Elem()
	}
	for it := m.MapRange(); it.Next(); {
		key.SetIterKey(it)
		ent := mapEntry{key: key.String()}
		switch f.val.kind {
		case kString:
			val.SetIterValue(it)
			ent.str = val.String()
		case kBytes:
			val.SetIterValue(it)
			ent.raw = val.Bytes()
		default:
			ent.val = reflect.New(f.val.typ).Elem()
			ent.val.SetIterValue(it)
		}
		e.entries = append(e.entries, ent)
	}
	entries := e.entries[start:]
	slices.SortFunc(entries, func(a, b mapEntry) int { return strings.Compare(a.key, b.key) })
	n := 0
	for i := range entries {
		idx := e.reserve()
		size := 1 + protowire.SizeBytes(len(entries[i].key)) + e.sizeEntryValue(f, &entries[i])
		e.sizes[idx] = size
		n += len(f.tag) + protowire.SizeBytes(size)
	}
	return n
}

// sizeEntryValue is the size of an entry's value field, key included;
// nil bytes are left out, as generated code leaves them out.
func (e *encoder) sizeEntryValue(f *field, ent *mapEntry) int {
	switch f.val.kind {
	case kString:
		return 1 + protowire.SizeBytes(len(ent.str))
	case kBytes:
		if ent.raw == nil {
			return 0
		}
		return 1 + protowire.SizeBytes(len(ent.raw))
	}
	return 1 + e.sizeValue(&f.val, ent.val)
}

func (e *encoder) reserve() int {
	e.sizes = append(e.sizes, 0)
	return len(e.sizes) - 1
}

// sizeValue is the size of one value without its key, length prefix
// included.
func (e *encoder) sizeValue(vt *valueType, v reflect.Value) int {
	switch vt.kind {
	case kString, kBytes:
		return protowire.SizeBytes(v.Len())
	case kBool:
		return 1
	case kInt:
		return protowire.SizeVarint(uint64(v.Int()))
	case kUint:
		return protowire.SizeVarint(v.Uint())
	case kFloat32:
		return 4
	case kFloat64:
		return 8
	case kTime:
		return protowire.SizeBytes(timeSize(valueAs[meta.Time](v)))
	case kMicroTime:
		return protowire.SizeBytes(microTimeSize(valueAs[meta.MicroTime](v)))
	case kRaw:
		return protowire.SizeBytes(rawSize(v))
	case kMessage:
		idx := e.reserve()
		n := e.sizeMessage(vt.msg, v)
		e.sizes[idx] = n
		return protowire.SizeBytes(n)
	case kProxy:
		return e.sizeProxy(vt, v)
	case kDynamic:
		p, obj := e.dynamic(v)
		if p == nil {
			return 0
		}
		idx := e.reserve()
		n := e.sizeMessage(p, obj)
		e.sizes[idx] = n
		return protowire.SizeBytes(n)
	}
	return 0
}

// dynamic resolves an interface value holding a pointer to a struct.
func (e *encoder) dynamic(v reflect.Value) (*plan, reflect.Value) {
	if v.IsNil() || v.Elem().Kind() != reflect.Pointer || v.Elem().IsNil() {
		e.fail(fmt.Errorf("protobuf: cannot encode %v holding %v", v.Type(), v))
		return nil, reflect.Value{}
	}
	obj := v.Elem().Elem()
	p, err := e.ser.planOf(obj.Type())
	if err != nil {
		e.fail(err)
		return nil, reflect.Value{}
	}
	return p, obj
}

func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// valueAs reads a struct value of type T (meta.Time, meta.MicroTime)
// without copying through an interface when the value is addressable, as
// struct fields reached through a pointer are.
func valueAs[T any](v reflect.Value) T {
	if v.CanAddr() {
		return *(*T)(v.Addr().UnsafePointer())
	}
	return v.Interface().(T)
}

// timeSize is the size of meta/v1 Time: empty when zero, else seconds and
// a nanos of 0 (meta/v1 Time has second precision, and generated code
// writes the int32 even when zero).
func timeSize(t meta.Time) int {
	if t.IsZero() {
		return 0
	}
	return 1 + protowire.SizeVarint(uint64(t.Unix())) + 1 + 1
}

// microNanos is the nanos field of meta/v1 MicroTime: the nanoseconds
// truncated to the microsecond, as apimachinery writes them.
func microNanos(t meta.MicroTime) int32 {
	return int32(t.Nanosecond() / 1000 * 1000)
}

// microTimeSize is the size of meta/v1 MicroTime: empty when zero, else
// seconds and nanos, both always written.
func microTimeSize(t meta.MicroTime) int {
	if t.IsZero() {
		return 0
	}
	return 1 + protowire.SizeVarint(uint64(t.Unix())) + 1 + protowire.SizeVarint(uint64(int64(microNanos(t))))
}

func rawSize(v reflect.Value) int {
	if v.IsNil() {
		return 0
	}
	return 1 + protowire.SizeBytes(v.Len())
}

func (e *encoder) appendMessage(b []byte, p *plan, v reflect.Value) []byte {
	for i := range p.fields {
		f := &p.fields[i]
		fv := v.Field(f.index)
		switch f.shape {
		case single:
			if f.val.kind == kBytes && fv.IsNil() {
				continue
			}
			if f.val.kind == kProxy {
				b = e.appendProxyField(b, f)
				continue
			}
			b = e.appendValue(append(b, f.tag...), &f.val, fv)
		case pointer:
			if !fv.IsNil() {
				b = e.appendValue(append(b, f.tag...), &f.val, fv.Elem())
			}
		case repeated:
			for j, l := 0, fv.Len(); j < l; j++ {
				b = e.appendValue(append(b, f.tag...), &f.val, fv.Index(j))
			}
		case mapped:
			b = e.appendMap(b, f, fv)
		}
	}
	return b
}

// appendMap writes a map's entries. The first pass queued them together,
// before the entries of any map inside their values, so the map takes its
// whole run before writing a value.
func (e *encoder) appendMap(b []byte, f *field, m reflect.Value) []byte {
	entries := e.entries[e.nextE : e.nextE+m.Len()]
	e.nextE += len(entries)
	for i := range entries {
		ent := &entries[i]
		b = append(b, f.tag...)
		b = protowire.AppendVarint(b, uint64(e.sizes[e.next]))
		e.next++
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, ent.key)
		switch f.val.kind {
		case kString:
			b = protowire.AppendString(append(b, 0x12), ent.str)
		case kBytes:
			if ent.raw != nil {
				b = protowire.AppendBytes(append(b, 0x12), ent.raw)
			}
		default:
			b = protowire.AppendTag(b, 2, f.val.kind.wireType())
			b = e.appendValue(b, &f.val, ent.val)
		}
	}
	return b
}

// appendValue appends one value after its key.
func (e *encoder) appendValue(b []byte, vt *valueType, v reflect.Value) []byte {
	switch vt.kind {
	case kString:
		return protowire.AppendString(b, v.String())
	case kBytes:
		return protowire.AppendBytes(b, v.Bytes())
	case kBool:
		return protowire.AppendVarint(b, protowire.EncodeBool(v.Bool()))
	case kInt:
		return protowire.AppendVarint(b, uint64(v.Int()))
	case kUint:
		return protowire.AppendVarint(b, v.Uint())
	case kFloat32:
		return protowire.AppendFixed32(b, math.Float32bits(float32(v.Float())))
	case kFloat64:
		return protowire.AppendFixed64(b, math.Float64bits(v.Float()))
	case kTime:
		t := valueAs[meta.Time](v)
		b = protowire.AppendVarint(b, uint64(timeSize(t)))
		if t.IsZero() {
			return b
		}
		b = protowire.AppendVarint(append(b, 0x08), uint64(t.Unix()))
		return append(b, 0x10, 0x00)
	case kMicroTime:
		t := valueAs[meta.MicroTime](v)
		b = protowire.AppendVarint(b, uint64(microTimeSize(t)))
		if t.IsZero() {
			return b
		}
		b = protowire.AppendVarint(append(b, 0x08), uint64(t.Unix()))
		return protowire.AppendVarint(append(b, 0x10), uint64(int64(microNanos(t))))
	case kRaw:
		b = protowire.AppendVarint(b, uint64(rawSize(v)))
		if v.IsNil() {
			return b
		}
		return protowire.AppendBytes(append(b, 0x0a), v.Bytes())
	case kMessage:
		b = protowire.AppendVarint(b, uint64(e.sizes[e.next]))
		e.next++
		return e.appendMessage(b, vt.msg, v)
	case kProxy:
		return e.appendProxy(b, vt)
	case kDynamic:
		p, obj := e.dynamic(v)
		if p == nil {
			return b
		}
		b = protowire.AppendVarint(b, uint64(e.sizes[e.next]))
		e.next++
		return e.appendMessage(b, p, obj)
	}
	return b
}
