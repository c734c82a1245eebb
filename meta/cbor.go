package meta

import "time"

// MarshalCBOR writes the time as kube-apiserver does: an RFC 3339 string
// in UTC, in a CBOR byte string (the type Kubernetes' CBOR encoder uses for
// every Go string), or null when zero. Without it a CBOR encoder would
// pick the MarshalText that Time inherits from time.Time, which writes the
// zero time as a date and keeps fractional seconds. The bytes are written
// here so that meta needs no CBOR library.
func (t Time) MarshalCBOR() ([]byte, error) {
	if t.IsZero() {
		return []byte{0xf6}, nil // null
	}
	var s [len(time.RFC3339) + 16]byte
	return cborBytes(t.UTC().AppendFormat(s[:0], time.RFC3339)), nil
}

// cborBytes encodes text (shorter than 256 bytes) as a CBOR byte string:
// major type 2, with the length in the head byte below 24 and in one more
// byte above.
func cborBytes(text []byte) []byte {
	head := []byte{0x40 | byte(len(text))}
	if len(text) >= 24 {
		head = []byte{0x58, byte(len(text))}
	}
	return append(head, text...)
}
