package protobuf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
)

// Media types of Kubernetes protobuf.
const (
	// MediaType is the type of objects, lists and Status bodies.
	MediaType = "application/vnd.kubernetes.protobuf"
	// StreamMediaType is the type of watch responses.
	StreamMediaType = MediaType + ";stream=watch"
)

// magic starts every enveloped message: "k8s" and a zero byte.
var magic = [4]byte{'k', '8', 's', 0}

// Serializer is the Kubernetes protobuf serializer. It encodes and decodes
// structs from their protobuf tags through a plan built once per type and
// kept in the Serializer. The zero value is ready to use; a Serializer is
// safe for concurrent use and must not be copied after first use.
type Serializer struct {
	plans sync.Map // reflect.Type (a struct) → *planResult
	build sync.Mutex
	pool  sync.Pool // *encoder
}

type planResult struct {
	plan *plan
	err  error
}

var (
	_ codec.Serializer   = (*Serializer)(nil)
	_ codec.WatchEncoder = (*Serializer)(nil)
	_ codec.Selective    = (*Serializer)(nil)
)

// New returns a Serializer.
func New() *Serializer { return &Serializer{} }

// MediaType returns application/vnd.kubernetes.protobuf.
func (*Serializer) MediaType() string { return MediaType }

// StreamMediaType returns application/vnd.kubernetes.protobuf;stream=watch.
func (*Serializer) StreamMediaType() string { return StreamMediaType }

// Supports reports whether t, a struct or a pointer to one, has a protobuf
// form: every exported field carries a protobuf tag (an embedded
// meta.TypeMeta excepted: it travels in the envelope) and has a type the
// serializer knows.
func (s *Serializer) Supports(t reflect.Type) bool {
	_, err := s.planOf(t)
	return err == nil
}

// planOf returns the plan of a struct type or a pointer to one, building
// it on first use.
func (s *Serializer) planOf(t reflect.Type) (*plan, error) {
	if t == nil {
		return nil, errors.New("protobuf: nil type")
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if r, ok := s.plans.Load(t); ok {
		res := r.(*planResult)
		return res.plan, res.err
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("protobuf: %v is not a struct", t)
	}
	s.build.Lock()
	defer s.build.Unlock()
	b := &builder{lookup: s.lookup, built: map[reflect.Type]*plan{}}
	p, err := b.plan(t)
	if err != nil {
		err = fmt.Errorf("protobuf: %w", err)
		s.plans.Store(t, &planResult{err: err})
		return nil, err
	}
	settleBudgets(b.built)
	for typ, bp := range b.built {
		s.plans.Store(typ, &planResult{plan: bp})
	}
	return p, nil
}

// lookup returns a complete plan already built.
func (s *Serializer) lookup(t reflect.Type) (*plan, bool) {
	r, ok := s.plans.Load(t)
	if !ok {
		return nil, false
	}
	res := r.(*planResult)
	return res.plan, res.err == nil
}

// Encode writes v, a pointer to a struct, in the envelope:
// the magic bytes, then runtime.Unknown{typeMeta, raw, contentEncoding,
// contentType} whose typeMeta is v's embedded meta.TypeMeta and whose raw
// is v's fields.
func (s *Serializer) Encode(w io.Writer, v any) error {
	e := s.encoder()
	defer s.release(e)
	b, err := e.envelope(nil, v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// Decode reads an enveloped message into v, a pointer to a struct: v is
// reset, its fields are read from raw and its embedded meta.TypeMeta from
// the envelope. Unknown fields are skipped, as generated Kubernetes code
// skips them; protobuf has no strict decoding, so strict is always nil.
func (s *Serializer) Decode(data []byte, v any) (strict []error, err error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, fmt.Errorf("protobuf: cannot decode into %T", v)
	}
	p, err := s.planOf(rv.Type())
	if err != nil {
		return nil, err
	}
	unk, err := readEnvelope(data)
	if err != nil {
		return nil, err
	}
	obj := rv.Elem()
	obj.SetZero()
	if err := s.decodeMessage(p, obj, unk.raw, newDctx(len(data))); err != nil {
		return nil, err
	}
	if p.typeMeta >= 0 {
		tm := obj.Field(p.typeMeta).Addr().Interface().(*meta.TypeMeta)
		tm.APIVersion, tm.Kind = unk.apiVersion, unk.kind
	}
	return nil, nil
}

// AppendEvent appends one watch frame: a 4-byte big-endian length, then
// meta/v1 WatchEvent{type=1, object=RawExtension{raw=1}} without an
// envelope, whose raw is object, itself an enveloped message.
func (*Serializer) AppendEvent(dst []byte, eventType string, object []byte) []byte {
	ext := protowire.SizeTag(1) + protowire.SizeBytes(len(object))
	size := protowire.SizeTag(1) + protowire.SizeBytes(len(eventType)) + protowire.SizeTag(2) + protowire.SizeBytes(ext)
	dst = binary.BigEndian.AppendUint32(dst, uint32(size))
	dst = protowire.AppendTag(dst, 1, protowire.BytesType)
	dst = protowire.AppendString(dst, eventType)
	dst = protowire.AppendTag(dst, 2, protowire.BytesType)
	dst = protowire.AppendVarint(dst, uint64(ext))
	dst = protowire.AppendTag(dst, 1, protowire.BytesType)
	return protowire.AppendBytes(dst, object)
}

func (s *Serializer) encoder() *encoder {
	if e, ok := s.pool.Get().(*encoder); ok {
		return e
	}
	return &encoder{ser: s}
}

func (s *Serializer) release(e *encoder) {
	if cap(e.sizes) > 1<<12 || cap(e.entries) > 1<<10 || cap(e.proxies) > 1<<10 {
		return // do not keep what one huge object grew
	}
	e.reset()
	s.pool.Put(e)
}
