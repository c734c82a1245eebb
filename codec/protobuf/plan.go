package protobuf

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/kapi-dev/kapi/meta"
)

// valueKind is how one value travels on the wire.
type valueKind uint8

const (
	kString    valueKind = iota // string-kinded: bytes
	kBytes                      // []byte: bytes
	kBool                       // varint 0 or 1
	kInt                        // signed integer: varint, sign-extended as gogo does
	kUint                       // unsigned integer: varint
	kFloat32                    // fixed32
	kFloat64                    // fixed64
	kMessage                    // struct with its own plan: bytes
	kTime                       // meta.Time as meta/v1 Time{seconds=1, nanos=2}
	kMicroTime                  // meta.MicroTime as meta/v1 MicroTime{seconds=1, nanos=2}
	kRaw                        // json.RawMessage as runtime.RawExtension{raw=1}
	kDynamic                    // interface holding a pointer to a struct: a message of its dynamic type
	kProxy                      // a Proxied value: the message of its proxy
)

// wireType is the wire type a value of the kind is written with.
func (k valueKind) wireType() protowire.Type {
	switch k {
	case kBool, kInt, kUint:
		return protowire.VarintType
	case kFloat32:
		return protowire.Fixed32Type
	case kFloat64:
		return protowire.Fixed64Type
	}
	return protowire.BytesType
}

// scalar is true for kinds a packed repeated field may hold.
func (k valueKind) scalar() bool {
	return k.wireType() != protowire.BytesType
}

// shape is how a field holds its value(s).
type shape uint8

const (
	single   shape = iota // a value: always written, as gogo does for non-nullable fields
	pointer               // *T: written when not nil
	repeated              // []T: one field per element, nothing when empty
	mapped                // map[string]T: one entry message per key, in key order
)

// valueType describes one value: its kind and, for messages, its plan.
type valueType struct {
	kind valueKind
	typ  reflect.Type // the Go type, for allocation while decoding
	msg  *plan        // kMessage: its plan; kProxy: its proxy's
	// perByte is, for a message, the memory per byte of body its
	// smallest generated encoding takes in this field, at least
	// allocPerByte (see budget.go).
	perByte int64
}

// field is one protobuf field of a struct.
type field struct {
	num   protowire.Number
	tag   []byte // the encoded key (number and wire type)
	index int    // the struct field index
	name  string
	shape shape
	val   valueType // the value, the element of a slice or the value of a map
}

// plan is how one struct type is encoded and decoded: built once per type
// from its protobuf tags.
type plan struct {
	typ      reflect.Type
	fields   []field // in field-number order, the order gogo writes them
	byNum    map[protowire.Number]int
	typeMeta int // index of an untagged meta.TypeMeta field (the envelope's), or -1
	minWire  int // the fewest bytes generated code writes for the message (see budget.go)
}

var (
	timeType      = reflect.TypeOf(meta.Time{})
	microTimeType = reflect.TypeOf(meta.MicroTime{})
	rawType       = reflect.TypeOf(json.RawMessage(nil))
	typeMetaType  = reflect.TypeOf(meta.TypeMeta{})
)

// builder builds the plans of one struct type and every struct it reaches;
// building keeps plans that are still being filled in so that recursive
// types terminate.
type builder struct {
	lookup func(reflect.Type) (*plan, bool)
	built  map[reflect.Type]*plan
}

func (b *builder) plan(t reflect.Type) (*plan, error) {
	if p, ok := b.lookup(t); ok {
		return p, nil
	}
	if p, ok := b.built[t]; ok {
		return p, nil
	}
	p := &plan{typ: t, typeMeta: -1, byNum: map[protowire.Number]int{}}
	b.built[t] = p
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag, ok := sf.Tag.Lookup("protobuf")
		switch {
		case tag == "-":
			continue
		case !ok && sf.Type == typeMetaType && sf.Anonymous:
			p.typeMeta = i
			continue
		case !ok:
			return nil, fmt.Errorf("%v: field %s has no protobuf tag", t, sf.Name)
		}
		f, err := b.field(sf, tag)
		if err != nil {
			return nil, fmt.Errorf("%v: field %s: %w", t, sf.Name, err)
		}
		if _, dup := p.byNum[f.num]; dup {
			return nil, fmt.Errorf("%v: field %s: field number %d is used twice", t, sf.Name, f.num)
		}
		f.index = i
		p.byNum[f.num] = len(p.fields)
		p.fields = append(p.fields, f)
	}
	sort.Slice(p.fields, func(i, j int) bool { return p.fields[i].num < p.fields[j].num })
	for i, f := range p.fields {
		p.byNum[f.num] = i
	}
	return p, nil
}

// field reads a tag such as "bytes,3,opt,name=namespace". Only the number
// is taken from it: Kubernetes tags do not always name the wire type the
// generated code writes (ListMeta.remainingItemCount says bytes, but is a
// varint), so the wire type follows from the Go type.
func (b *builder) field(sf reflect.StructField, tag string) (field, error) {
	parts := strings.Split(tag, ",")
	if len(parts) < 2 {
		return field{}, fmt.Errorf("malformed protobuf tag %q", tag)
	}
	n, err := strconv.ParseInt(parts[1], 10, 32)
	if err != nil || !protowire.Number(n).IsValid() {
		return field{}, fmt.Errorf("invalid field number in protobuf tag %q", tag)
	}
	f := field{num: protowire.Number(n), name: sf.Name}
	t := sf.Type
	switch {
	case t == rawType || t == timeType || t == microTimeType || isProxied(t):
		f.shape = single
	case t.Kind() == reflect.Pointer:
		f.shape, t = pointer, t.Elem()
		if !isProxied(t) && (t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Pointer) {
			return field{}, fmt.Errorf("unsupported type %v", sf.Type)
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		f.shape, t = repeated, t.Elem()
	case t.Kind() == reflect.Map:
		if t.Key().Kind() != reflect.String {
			return field{}, fmt.Errorf("unsupported map key type %v", t.Key())
		}
		f.shape, t = mapped, t.Elem()
	}
	if f.val, err = b.value(t, f.shape == repeated); err != nil {
		return field{}, err
	}
	wt := f.val.kind.wireType()
	if f.shape == mapped {
		wt = protowire.BytesType // entries are messages, whatever their values
	}
	f.tag = protowire.AppendTag(nil, f.num, wt)
	return f, nil
}

// value classifies one value type; interfaces are allowed as list items.
func (b *builder) value(t reflect.Type, inSlice bool) (valueType, error) {
	vt := valueType{typ: t}
	if isProxied(t) {
		return b.proxyValue(t)
	}
	switch t.Kind() {
	case reflect.String:
		vt.kind = kString
	case reflect.Bool:
		vt.kind = kBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		vt.kind = kInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		vt.kind = kUint
	case reflect.Float32:
		vt.kind = kFloat32
	case reflect.Float64:
		vt.kind = kFloat64
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			return vt, fmt.Errorf("unsupported type %v", t)
		}
		vt.kind = kBytes
		if t == rawType {
			vt.kind = kRaw
		}
	case reflect.Struct:
		if t == timeType {
			vt.kind = kTime
			break
		}
		if t == microTimeType {
			vt.kind = kMicroTime
			break
		}
		p, err := b.plan(t)
		if err != nil {
			return vt, err
		}
		vt.kind, vt.msg = kMessage, p
	case reflect.Interface:
		if !inSlice {
			return vt, fmt.Errorf("unsupported interface type %v", t)
		}
		vt.kind = kDynamic
	default:
		return vt, fmt.Errorf("unsupported type %v", t)
	}
	return vt, nil
}

// proxyValue classifies a Proxied type: a message of its proxy's plan.
func (b *builder) proxyValue(t reflect.Type) (valueType, error) {
	pt, err := proxyType(t)
	if err != nil {
		return valueType{}, err
	}
	if isProxied(pt) {
		return valueType{}, fmt.Errorf("the proxy of %v, %v, is itself proxied", t, pt)
	}
	p, err := b.plan(pt)
	if err != nil {
		return valueType{}, err
	}
	return valueType{kind: kProxy, typ: t, msg: p}, nil
}
