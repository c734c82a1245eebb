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
func (Serializer) AppendList(dst []byte, l *meta.List, items [][]byte) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	buf.WriteString(selfDescribedHead)
	err := writeList(buf, l, len(items), func(i int) error {
		buf.Write(items[i])
		return nil
	})
	return buf.Bytes(), err
}
