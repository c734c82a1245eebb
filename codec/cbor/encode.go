package cbor

import (
	"bytes"
	"encoding/binary"

	"github.com/kapi-dev/kapi/meta"
)

// CBOR major types, shifted into the initial byte.
const (
	majorByteString byte = 2 << 5
	majorArray      byte = 4 << 5
	majorMap        byte = 5 << 5
)

var cborNull = []byte{0xf6}

// encode writes the self-described tag and v. Unstructured objects and
// lists get their own paths; everything else is encoded by type from its
// json tags.
func encode(buf *bytes.Buffer, v any) error {
	buf.WriteString(selfDescribedHead)
	return encodeValue(buf, v)
}

func encodeValue(buf *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case *meta.Unstructured:
		return defaultModes.enc.MarshalToBuffer(unstructuredMap(x), buf)
	case *meta.List:
		return encodeList(buf, x)
	}
	return defaultModes.enc.MarshalToBuffer(v, buf)
}

// unstructuredMap is the object as one map, as apimachinery encodes an
// Unstructured's content: numbers keep their decoded type (an integral
// float64 stays a float), which a trip through MarshalJSON would lose.
func unstructuredMap(u *meta.Unstructured) map[string]any {
	m := make(map[string]any, len(u.Content)+3)
	for k, v := range u.Content {
		m[k] = v
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	if u.APIVersion != "" {
		m["apiVersion"] = u.APIVersion
	}
	if u.Kind != "" {
		m["kind"] = u.Kind
	}
	m["metadata"] = &u.ObjectMeta
	return m
}

// encodeList writes a List map key by key so that Unstructured items take
// their own path.
func encodeList(buf *bytes.Buffer, l *meta.List) error {
	if l.Items == nil {
		return writeList(buf, l, -1, nil)
	}
	return writeList(buf, l, len(l.Items), func(i int) error { return encodeValue(buf, l.Items[i]) })
}

// writeList writes a List map whose n items item writes (n < 0: null
// items). The keys come in sorted order: kind, items, metadata,
// apiVersion (shorter encoded keys first).
func writeList(buf *bytes.Buffer, l *meta.List, n int, item func(i int) error) error {
	writeListHead(buf, l, n)
	for i := range n {
		if err := item(i); err != nil {
			return err
		}
	}
	return writeListTail(buf, l)
}

// writeListHead writes a List map up to its items: the map's head, kind,
// and the items key with the head of the array of n items (n < 0: null).
func writeListHead(buf *bytes.Buffer, l *meta.List, n int) {
	fields := uint64(2)
	if l.Kind != "" {
		fields++
	}
	if l.APIVersion != "" {
		fields++
	}
	buf.Write(appendHead(nil, majorMap, fields))
	if l.Kind != "" {
		buf.Write(appendByteString(nil, "kind"))
		buf.Write(appendByteString(nil, l.Kind))
	}
	buf.Write(appendByteString(nil, "items"))
	if n < 0 {
		buf.Write(cborNull)
	} else {
		buf.Write(appendHead(nil, majorArray, uint64(n)))
	}
}

// writeListTail writes what a List map holds after its items: metadata
// and apiVersion.
func writeListTail(buf *bytes.Buffer, l *meta.List) error {
	buf.Write(appendByteString(nil, "metadata"))
	if err := defaultModes.enc.MarshalToBuffer(&l.ListMeta, buf); err != nil {
		return err
	}
	if l.APIVersion != "" {
		buf.Write(appendByteString(nil, "apiVersion"))
		buf.Write(appendByteString(nil, l.APIVersion))
	}
	return nil
}

// appendHead appends the shortest head of a data item of the given major
// type and argument, as deterministic encoding requires.
func appendHead(dst []byte, major byte, n uint64) []byte {
	switch {
	case n < 24:
		return append(dst, major|byte(n))
	case n <= 0xff:
		return append(dst, major|24, byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(dst, major|25), uint16(n))
	case n <= 0xffffffff:
		return binary.BigEndian.AppendUint32(append(dst, major|26), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(dst, major|27), n)
}

// appendByteString appends s as a byte string, the type Go strings are
// encoded as.
func appendByteString(dst []byte, s string) []byte {
	return append(appendHead(dst, majorByteString, uint64(len(s))), s...)
}
