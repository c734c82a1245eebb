package protobuf

import "reflect"

// Decoding is bounded in the memory its messages take per byte of body
// (see dctx), and the bound must let through every message generated code
// writes. A message it writes takes at least the bytes of its fields that
// are always written (non-pointer scalars, strings and messages): a type
// whose structs are large next to that, such as apiextensions'
// JSONSchemaProps with some forty fields of which a dozen are always
// written, would spend the budget on a legitimate body. Its messages are
// charged in proportion, in the fields that hold them only: a hostile
// body of empty messages gets no further through such a field than a
// generated body of the smallest messages would, and through any other
// field no further than allocPerByte.

// settleBudgets works out minWire and each message field's perByte for
// freshly built plans; the plans they reach that were built before are
// already settled.
func settleBudgets(built map[reflect.Type]*plan) {
	for _, p := range built {
		p.minWire = -1
	}
	for _, p := range built {
		minWire(p)
	}
	for _, p := range built {
		for i := range p.fields {
			f := &p.fields[i]
			f.val.perByte = fieldPerByte(f)
		}
	}
}

// minWire is the fewest bytes of p's fields generated code writes: every
// singular non-pointer field (nil bytes and proxies aside), each at its
// smallest. A struct cannot hold itself without a pointer, so the
// recursion ends.
func minWire(p *plan) int {
	if p.minWire >= 0 {
		return p.minWire
	}
	n := 0
	for i := range p.fields {
		if f := &p.fields[i]; f.shape == single {
			n += valueMinWire(f)
		}
	}
	p.minWire = n
	return n
}

func valueMinWire(f *field) int {
	switch f.val.kind {
	case kBytes, kProxy, kDynamic:
		return 0 // left out when nil, or not known
	case kFloat32:
		return len(f.tag) + 4
	case kFloat64:
		return len(f.tag) + 8
	case kMessage:
		return len(f.tag) + 1 + minWire(f.val.msg)
	}
	return len(f.tag) + 1 // a one-byte varint, or an empty length
}

// fieldPerByte is the memory per byte of body one message of field f
// takes at its smallest, as decoding charges it: a list element its
// struct and four more for the slice's growth, a map value its struct
// with the entry's key and value tags and lengths around it. Other fields
// get allocPerByte.
func fieldPerByte(f *field) int64 {
	if f.val.kind != kMessage && f.val.kind != kProxy {
		return allocPerByte
	}
	cost := int64(f.val.msg.typ.Size())
	wire := int64(len(f.tag) + 1 + minWire(f.val.msg))
	switch f.shape {
	case repeated:
		cost *= 5
	case mapped:
		wire += 4
	}
	return max(allocPerByte, (cost+wire-1)/wire)
}

// scaled is what decoding charges for size bytes of vt's messages: size
// itself unless generated messages of the field take more per byte than
// allocPerByte, then in proportion, and never nothing.
func (vt *valueType) scaled(size uintptr) uintptr {
	if vt.perByte <= allocPerByte {
		return size
	}
	return max(1, size*allocPerByte/uintptr(vt.perByte))
}
