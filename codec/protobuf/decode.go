package protobuf

import (
	"fmt"
	"math"
	"reflect"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/kapi-dev/kapi/meta"
)

// maxDepth bounds message nesting while decoding, so that a hostile body
// cannot exhaust the stack through a recursive type.
const maxDepth = 1000

// A body may decode to at most allocPerByte bytes of message structs per
// byte of body, plus allocBase: a nested or repeated empty message takes
// two bytes of body but a whole struct in memory, so that without a bound
// 3 MiB of them could take hundreds of times their size. A field whose
// messages take more even as generated code writes them is charged in
// proportion (see budget.go).
const (
	allocPerByte = 8
	allocBase    = 64 << 10
)

// dctx is what the decoding of one body carries down its messages: the
// nesting depth and the bytes of message structs it may still allocate.
type dctx struct {
	depth  int
	budget *int64
}

// newDctx returns the context for decoding a body of n bytes.
func newDctx(n int) dctx {
	b := int64(n)*allocPerByte + allocBase
	return dctx{budget: &b}
}

// deeper returns the context one message further down.
func (dc dctx) deeper() dctx {
	dc.depth++
	return dc
}

// charge takes size bytes from the budget, or fails when it is spent.
func (dc dctx) charge(size uintptr) error {
	if dc.budget == nil {
		return nil
	}
	if *dc.budget -= int64(size); *dc.budget < 0 {
		return fmt.Errorf("protobuf: the body decodes to more than %d times its size", allocPerByte)
	}
	return nil
}

// decodeMessage merges the fields of msg into v, an addressable struct, as
// generated code does: a repeated message field appends, a second
// occurrence of a singular message merges into the first, unknown fields
// are skipped.
func (s *Serializer) decodeMessage(p *plan, v reflect.Value, msg []byte, dc dctx) error {
	if dc.depth > maxDepth {
		return fmt.Errorf("protobuf: messages nested deeper than %d", maxDepth)
	}
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return wireError(n)
		}
		msg = msg[n:]
		i, known := p.byNum[num]
		if !known {
			if n = protowire.ConsumeFieldValue(num, typ, msg); n < 0 {
				return wireError(n)
			}
			msg = msg[n:]
			continue
		}
		f := &p.fields[i]
		n, err := s.decodeField(f, v.Field(f.index), typ, msg, dc)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		msg = msg[n:]
	}
	return nil
}

// decodeField reads one occurrence of a field and returns the bytes it
// took.
func (s *Serializer) decodeField(f *field, fv reflect.Value, typ protowire.Type, b []byte, dc dctx) (int, error) {
	switch f.shape {
	case pointer:
		if fv.IsNil() {
			fv.Set(reflect.New(f.val.typ))
		}
		fv = fv.Elem()
	case repeated:
		if typ == protowire.BytesType && f.val.kind.scalar() {
			return s.decodePacked(f, fv, b)
		}
		// Appending allocates a few times the element's size, the
		// slice growing by a quarter once it is large.
		if err := dc.charge(f.val.scaled(4 * f.val.typ.Size())); err != nil {
			return 0, err
		}
		fv.Set(reflect.Append(fv, reflect.Zero(f.val.typ)))
		fv = fv.Index(fv.Len() - 1)
	case mapped:
		return s.decodeEntry(f, fv, typ, b, dc)
	}
	return s.decodeValue(&f.val, fv, typ, b, dc)
}

// decodePacked reads a packed repeated scalar field, which generated
// Kubernetes code never writes but protobuf readers must accept.
func (s *Serializer) decodePacked(f *field, fv reflect.Value, b []byte) (int, error) {
	payload, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, wireError(n)
	}
	for len(payload) > 0 {
		fv.Set(reflect.Append(fv, reflect.Zero(f.val.typ)))
		m, err := s.decodeValue(&f.val, fv.Index(fv.Len()-1), f.val.kind.wireType(), payload, dctx{})
		if err != nil {
			return 0, err
		}
		payload = payload[m:]
	}
	return n, nil
}

// decodeEntry reads one map entry {key=1, value=2}; a missing key or
// value is the zero value.
func (s *Serializer) decodeEntry(f *field, fv reflect.Value, typ protowire.Type, b []byte, dc dctx) (int, error) {
	if typ != protowire.BytesType {
		return 0, fmt.Errorf("map entry has wire type %d", typ)
	}
	entry, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, wireError(n)
	}
	if fv.IsNil() {
		fv.Set(reflect.MakeMap(fv.Type()))
	}
	key := reflect.New(fv.Type().Key()).Elem()
	val := reflect.New(f.val.typ).Elem()
	for len(entry) > 0 {
		num, etyp, m := protowire.ConsumeTag(entry)
		if m < 0 {
			return 0, wireError(m)
		}
		entry = entry[m:]
		switch num {
		case 1:
			if etyp != protowire.BytesType {
				return 0, fmt.Errorf("map key has wire type %d", etyp)
			}
			var ks []byte
			if ks, m = protowire.ConsumeBytes(entry); m >= 0 {
				key.SetString(string(ks))
			}
		case 2:
			m, err := s.decodeValue(&f.val, val, etyp, entry, dc)
			if err != nil {
				return 0, err
			}
			entry = entry[m:]
			continue
		default:
			m = protowire.ConsumeFieldValue(num, etyp, entry)
		}
		if m < 0 {
			return 0, wireError(m)
		}
		entry = entry[m:]
	}
	if f.val.kind == kBytes && val.IsNil() {
		val.SetBytes([]byte{})
	}
	fv.SetMapIndex(key, val)
	return n, nil
}

// decodeValue reads one value of wire type typ into v.
func (s *Serializer) decodeValue(vt *valueType, v reflect.Value, typ protowire.Type, b []byte, dc dctx) (int, error) {
	if want := vt.kind.wireType(); typ != want {
		return 0, fmt.Errorf("wire type %d, want %d", typ, want)
	}
	switch typ {
	case protowire.VarintType:
		x, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return 0, wireError(n)
		}
		switch vt.kind {
		case kBool:
			v.SetBool(x != 0)
		case kInt:
			v.SetInt(int64(x)) // narrower ints truncate, as generated code does
		default:
			v.SetUint(x)
		}
		return n, nil
	case protowire.Fixed32Type:
		x, n := protowire.ConsumeFixed32(b)
		if n < 0 {
			return 0, wireError(n)
		}
		v.SetFloat(float64(math.Float32frombits(x)))
		return n, nil
	case protowire.Fixed64Type:
		x, n := protowire.ConsumeFixed64(b)
		if n < 0 {
			return 0, wireError(n)
		}
		v.SetFloat(math.Float64frombits(x))
		return n, nil
	}
	payload, n := protowire.ConsumeBytes(b)
	if n < 0 {
		return 0, wireError(n)
	}
	return n, s.decodeBytes(vt, v, payload, dc)
}

// decodeBytes reads a length-delimited value.
func (s *Serializer) decodeBytes(vt *valueType, v reflect.Value, payload []byte, dc dctx) error {
	switch vt.kind {
	case kString:
		v.SetString(string(payload))
	case kBytes:
		v.SetBytes(append([]byte{}, payload...))
	case kMessage:
		dc = dc.deeper()
		if dc.depth <= maxDepth {
			if err := dc.charge(vt.scaled(v.Type().Size())); err != nil {
				return err
			}
		}
		return s.decodeMessage(vt.msg, v, payload, dc)
	case kTime:
		secs, _, err := decodeTimestamp(payload)
		if err != nil {
			return err
		}
		t := meta.Time{}
		if len(payload) > 0 {
			t = meta.Time{Time: time.Unix(secs, 0).UTC()}
		}
		v.Set(reflect.ValueOf(t))
	case kMicroTime:
		secs, nanos, err := decodeTimestamp(payload)
		if err != nil {
			return err
		}
		t := meta.MicroTime{}
		if len(payload) > 0 {
			t = meta.NewMicroTime(time.Unix(secs, int64(nanos)))
		}
		v.Set(reflect.ValueOf(t))
	case kRaw:
		return walk(payload, func(num protowire.Number, typ protowire.Type, b []byte) error {
			if num == 1 && typ == protowire.BytesType {
				v.SetBytes(append([]byte{}, b...))
			}
			return nil
		})
	case kProxy:
		return s.decodeProxy(vt, v, payload, dc)
	case kDynamic:
		return fmt.Errorf("cannot decode into %v", v.Type())
	}
	return nil
}

// decodeTimestamp reads the seconds and nanos of a meta/v1 Time or
// MicroTime; an empty message is the zero time, which the caller tells
// apart by the payload's length. Time keeps the seconds only, as
// kube-apiserver does.
func decodeTimestamp(payload []byte) (secs int64, nanos int32, err error) {
	for len(payload) > 0 {
		num, typ, n := protowire.ConsumeTag(payload)
		if n < 0 {
			return 0, 0, wireError(n)
		}
		payload = payload[n:]
		if (num == 1 || num == 2) && typ == protowire.VarintType {
			var x uint64
			x, n = protowire.ConsumeVarint(payload)
			if num == 1 {
				secs = int64(x)
			} else {
				nanos = int32(x)
			}
		} else {
			n = protowire.ConsumeFieldValue(num, typ, payload)
		}
		if n < 0 {
			return 0, 0, wireError(n)
		}
		payload = payload[n:]
	}
	return secs, nanos, nil
}
