package protobuf

import (
	"fmt"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"google.golang.org/protobuf/encoding/protowire"
)

var _ codec.ListWriter = (*Serializer)(nil)

// ListItem returns the message of an enveloped object: what a list
// carries for it.
func (*Serializer) ListItem(encoded []byte) ([]byte, error) {
	u, err := readEnvelope(encoded)
	if err != nil {
		return nil, err
	}
	return u.raw, nil
}

// AppendList appends l in its envelope with items, messages from
// ListItem, as its items (field 2), after its metadata (field 1).
func (s *Serializer) AppendList(dst []byte, l *meta.List, items [][]byte) ([]byte, error) {
	head, err := s.listMetaField(l)
	if err != nil {
		return nil, err
	}
	n := len(head)
	for _, it := range items {
		n += protowire.SizeTag(2) + protowire.SizeBytes(len(it))
	}
	if dst == nil {
		dst = make([]byte, 0, envelopeSize(l.APIVersion, l.Kind, n))
	}
	return appendUnknown(dst, l.APIVersion, l.Kind, n, func(b []byte) ([]byte, error) {
		b = append(b, head...)
		for _, it := range items {
			b = protowire.AppendTag(b, 2, protowire.BytesType)
			b = protowire.AppendBytes(b, it)
		}
		return b, nil
	})
}

// listMetaField is the encoded metadata field of l: the message of l
// without items.
func (s *Serializer) listMetaField(l *meta.List) ([]byte, error) {
	bare := &meta.List{TypeMeta: l.TypeMeta, ListMeta: l.ListMeta}
	e := s.encoder()
	defer s.release(e)
	b, err := e.envelope(nil, bare)
	if err != nil {
		return nil, err
	}
	u, err := readEnvelope(b)
	if err != nil {
		return nil, fmt.Errorf("protobuf: reading back a list's metadata: %w", err)
	}
	return u.raw, nil
}
