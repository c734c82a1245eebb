package cbor

import (
	"bytes"
	"io"

	"github.com/kapi-dev/kapi/codec"
)

// Media types of CBOR bodies and CBOR watch streams.
const (
	MediaType         = "application/cbor"
	StreamMediaType   = "application/cbor-seq"
	ApplyPatchType    = "application/apply-patch+cbor"
	selfDescribedHead = "\xd9\xd9\xf7"
)

// Serializer is the application/cbor serializer. The zero value is ready
// to use and safe for concurrent use.
type Serializer struct{}

var (
	_ codec.Serializer   = Serializer{}
	_ codec.WatchEncoder = Serializer{}
)

// MediaType returns application/cbor.
func (Serializer) MediaType() string { return MediaType }

// StreamMediaType returns application/cbor-seq: watch events are a CBOR
// sequence (RFC 8742), each item self-delimiting.
func (Serializer) StreamMediaType() string { return StreamMediaType }

// Encode writes v as one self-described CBOR data item.
func (Serializer) Encode(w io.Writer, v any) error {
	if buf, ok := w.(*bytes.Buffer); ok {
		return encode(buf, v)
	}
	var buf bytes.Buffer
	if err := encode(&buf, v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// Decode reads one CBOR data item into v. A body kube-apiserver would
// reject (malformed, duplicate keys, invalid text, NaN, trailing bytes) is
// an error; otherwise the value is decoded as its JSON equivalent would
// be, and unknown fields come back as strict errors with their paths.
func (Serializer) Decode(data []byte, v any) ([]error, error) {
	j, err := ToJSON(data)
	if err != nil {
		return nil, err
	}
	return codec.JSON{}.Decode(j, v)
}

// AppendEvent appends one self-described WatchEvent map, {"type": T,
// "object": O}, where object is an item Encode wrote (self-described tag
// included, as kube-apiserver embeds it).
func (Serializer) AppendEvent(dst []byte, eventType string, object []byte) []byte {
	dst = append(dst, selfDescribedHead...)
	dst = appendHead(dst, majorMap, 2)
	// "type" sorts before "object": shorter keys come first.
	dst = appendByteString(dst, "type")
	dst = appendByteString(dst, eventType)
	dst = appendByteString(dst, "object")
	return append(dst, object...)
}
