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
	return envelopeRaw(encoded)
}

// AppendList appends l in its envelope with items, messages from
// ListItem, as its items (field 2), after its metadata (field 1).
func (s *Serializer) AppendList(dst []byte, l *meta.List, items [][]byte) ([]byte, error) {
	size := 0
	for _, it := range items {
		size += s.ListItemSize(len(it))
	}
	head, tail, err := s.ListFrame(l, len(items), size)
	if err != nil {
		return nil, err
	}
	if dst == nil {
		dst = make([]byte, 0, len(head)+size+len(tail))
	}
	dst = append(dst, head...)
	for _, it := range items {
		dst = s.AppendListItem(dst, it)
	}
	return append(dst, tail...), nil
}

// ListFrame returns l's envelope head and metadata field (head), and
// the envelope's fields after its body (tail), around items of size
// bytes.
func (s *Serializer) ListFrame(l *meta.List, _, size int) (head, tail []byte, err error) {
	metaField, err := s.listMetaField(l)
	if err != nil {
		return nil, nil, err
	}
	head = appendEnvelopeHead(nil, l.APIVersion, l.Kind, len(metaField)+size)
	return append(head, metaField...), appendEnvelopeTail(nil), nil
}

// AppendListItem appends item as an item field (2) of a list.
func (*Serializer) AppendListItem(dst, item []byte) []byte {
	dst = protowire.AppendTag(dst, 2, protowire.BytesType)
	return protowire.AppendBytes(dst, item)
}

// ListItemSize is the size of an item field of an item of n bytes.
func (*Serializer) ListItemSize(n int) int {
	return protowire.SizeTag(2) + protowire.SizeBytes(n)
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
