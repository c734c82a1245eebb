package protobuf

import (
	"fmt"
	"reflect"

	"google.golang.org/protobuf/encoding/protowire"
)

// Proxied is implemented (on the pointer) by a type whose Go form is not
// its protobuf form: a value kept as raw JSON that travels as a message
// (apiextensions' JSONSchemaProps), or a named slice that travels as a
// message holding it (authentication's ExtraValue). Such a value is
// written and read as its proxy, a pointer to a struct encoded from its
// own protobuf tags.
type Proxied interface {
	// NewProtobufProxy returns a new, empty proxy; every call returns a
	// value of the same type.
	NewProtobufProxy() any
	// ToProtobufProxy returns the receiver as a proxy of that type, or
	// nil when the receiver has nothing to write: a singular field is
	// then left out, and an element of a list or map is an empty message.
	ToProtobufProxy() (any, error)
	// FromProtobufProxy sets the receiver from a proxy read from the
	// wire.
	FromProtobufProxy(proxy any) error
}

var proxiedType = reflect.TypeFor[Proxied]()

// isProxied reports whether values of t travel as a proxy.
func isProxied(t reflect.Type) bool {
	return t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(proxiedType)
}

// proxyType is the struct type of t's proxy.
func proxyType(t reflect.Type) (reflect.Type, error) {
	px := reflect.New(t).Interface().(Proxied).NewProtobufProxy()
	pt := reflect.TypeOf(px)
	if pt == nil || pt.Kind() != reflect.Pointer || pt.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("the proxy of %v is %v, not a pointer to a struct", t, pt)
	}
	return pt.Elem(), nil
}

// proxied returns v (a value of a Proxied type) through its pointer:
// the value itself when addressable, else a copy.
func proxied(v reflect.Value) Proxied {
	if !v.CanAddr() {
		c := reflect.New(v.Type())
		c.Elem().Set(v)
		v = c.Elem()
	}
	return v.Addr().Interface().(Proxied)
}

// toProxy converts v to its proxy and queues it for the writing pass,
// returning the proxy's struct, or an invalid Value when there is nothing
// to write.
func (e *encoder) toProxy(vt *valueType, v reflect.Value) reflect.Value {
	px, err := proxied(v).ToProtobufProxy()
	var pv reflect.Value
	switch {
	case err != nil:
		e.fail(fmt.Errorf("protobuf: %v: %w", vt.typ, err))
	case px == nil:
	case reflect.TypeOf(px) != reflect.PointerTo(vt.msg.typ) || reflect.ValueOf(px).IsNil():
		e.fail(fmt.Errorf("protobuf: the proxy of %v is %T, want %v", vt.typ, px, reflect.PointerTo(vt.msg.typ)))
	default:
		pv = reflect.ValueOf(px).Elem()
	}
	e.proxies = append(e.proxies, pv)
	return pv
}

// nextProxy returns the proxy toProxy queued for the value being written.
func (e *encoder) nextProxy() reflect.Value {
	pv := e.proxies[e.nextX]
	e.nextX++
	return pv
}

// sizeProxy sizes the proxy of v as a message, length prefix included;
// nothing to write is an empty message.
func (e *encoder) sizeProxy(vt *valueType, v reflect.Value) int {
	n, _ := e.sizeProxied(vt, v)
	return protowire.SizeBytes(n)
}

// sizeProxied converts v to its proxy and sizes its message, reporting
// whether there is one.
func (e *encoder) sizeProxied(vt *valueType, v reflect.Value) (int, bool) {
	idx := e.reserve()
	pv := e.toProxy(vt, v)
	if !pv.IsValid() {
		return 0, false
	}
	n := e.sizeMessage(vt.msg, pv)
	e.sizes[idx] = n
	return n, true
}

// sizeProxyField sizes a singular field holding a proxied value: left
// out when the value has nothing to write.
func (e *encoder) sizeProxyField(f *field, v reflect.Value) int {
	n, ok := e.sizeProxied(&f.val, v)
	if !ok {
		return 0
	}
	return len(f.tag) + protowire.SizeBytes(n)
}

// appendProxy writes the proxy sizeProxy queued, after its key.
func (e *encoder) appendProxy(b []byte, vt *valueType) []byte {
	pv := e.nextProxy()
	b = protowire.AppendVarint(b, uint64(e.sizes[e.next]))
	e.next++
	if !pv.IsValid() {
		return b
	}
	return e.appendMessage(b, vt.msg, pv)
}

// appendProxyField writes what sizeProxyField sized.
func (e *encoder) appendProxyField(b []byte, f *field) []byte {
	if !e.proxies[e.nextX].IsValid() {
		e.nextX++
		e.next++ // the size sizeProxied reserved
		return b
	}
	return e.appendProxy(append(b, f.tag...), &f.val)
}

// decodeProxy merges a message into the proxy of v, then sets v from it:
// a second occurrence of a singular field merges into the first, as
// generated code merges messages.
func (s *Serializer) decodeProxy(vt *valueType, v reflect.Value, payload []byte, dc dctx) error {
	p := v.Addr().Interface().(Proxied)
	var pv reflect.Value
	if !v.IsZero() {
		px, err := p.ToProtobufProxy()
		if err != nil {
			return err
		}
		if px != nil && reflect.TypeOf(px) == reflect.PointerTo(vt.msg.typ) {
			pv = reflect.ValueOf(px)
		}
	}
	if !pv.IsValid() || pv.IsNil() {
		pv = reflect.New(vt.msg.typ)
	}
	if dc.depth+1 <= maxDepth {
		if err := dc.charge(vt.scaled(vt.msg.typ.Size())); err != nil {
			return err
		}
	}
	if err := s.decodeMessage(vt.msg, pv.Elem(), payload, dc.deeper()); err != nil {
		return err
	}
	return p.FromProtobufProxy(pv.Interface())
}
