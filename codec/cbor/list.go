package cbor

import (
	"bytes"
	"errors"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
)

var _ codec.ListWriter = Serializer{}

// ListItem returns an object's data item without the self-described tag
// Encode puts before it: what a list carries for it.
func (Serializer) ListItem(encoded []byte) ([]byte, error) {
	if !bytes.HasPrefix(encoded, []byte(selfDescribedHead)) {
		return nil, errors.New("cbor: encoding without the self-described tag")
	}
	return encoded[len(selfDescribedHead):], nil
}

// AppendList appends l as Encode writes it, with items, data items from
// ListItem, as its items.
func (c Serializer) AppendList(dst []byte, l *meta.List, items [][]byte) ([]byte, error) {
	head, tail, err := c.ListFrame(l, len(items), 0)
	if err != nil {
		return nil, err
	}
	dst = append(dst, head...)
	for _, it := range items {
		dst = append(dst, it...)
	}
	return append(dst, tail...), nil
}

// ListFrame returns l's encoding up to the head of its items' array
// (head), and its keys after the items (tail). A CBOR list holds its items
// as they are, whatever their size.
func (Serializer) ListFrame(l *meta.List, n, _ int) (head, tail []byte, err error) {
	var buf bytes.Buffer
	buf.WriteString(selfDescribedHead)
	writeListHead(&buf, l, n)
	split := buf.Len()
	if err := writeListTail(&buf, l); err != nil {
		return nil, nil, err
	}
	b := buf.Bytes()
	return b[:split:split], b[split:], nil
}

// AppendListItem appends item as it is: a list's items are data items
// one after the other.
func (Serializer) AppendListItem(dst, item []byte) []byte { return append(dst, item...) }

// ListItemSize is n: items are not framed.
func (Serializer) ListItemSize(n int) int { return n }
