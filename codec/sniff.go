package codec

import "bytes"

// Media types of the binary encodings, as their serializers name them.
const (
	MediaTypeProtobuf = "application/vnd.kubernetes.protobuf"
	MediaTypeCBOR     = "application/cbor"
)

var (
	protobufMagic = []byte("k8s\x00")
	cborSelfTag   = []byte{0xd9, 0xd9, 0xf7}
)

// Sniff names the media type of one encoded object by its first bytes:
// Kubernetes protobuf starts with "k8s\x00", kube-apiserver's CBOR with
// the self-described CBOR tag, and anything else is taken for JSON. Stored
// values carry no content type, so this is how a reader tells them apart
// when the storage encoding has changed over the life of a store.
func Sniff(data []byte) string {
	switch {
	case bytes.HasPrefix(data, protobufMagic):
		return MediaTypeProtobuf
	case bytes.HasPrefix(data, cborSelfTag):
		return MediaTypeCBOR
	}
	return MediaTypeJSON
}
