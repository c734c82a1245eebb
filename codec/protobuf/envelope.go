package protobuf

import (
	"bytes"
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// unknown is runtime.Unknown: typeMeta=1 {apiVersion=1, kind=2}, raw=2,
// contentEncoding=3, contentType=4. Note that runtime.TypeMeta numbers
// apiVersion before kind, unlike meta/v1 TypeMeta.
type unknown struct {
	apiVersion, kind string
	raw              []byte
	contentEncoding  string
}

// appendUnknown appends the envelope around a body of bodySize bytes
// written by body. Generated code writes typeMeta, raw (when not nil) and
// both content strings even when empty.
func appendUnknown(dst []byte, apiVersion, kind string, bodySize int, body func([]byte) ([]byte, error)) ([]byte, error) {
	dst = appendEnvelopeHead(dst, apiVersion, kind, bodySize)
	start := len(dst)
	dst, err := body(dst)
	if err != nil {
		return nil, err
	}
	if len(dst)-start != bodySize {
		return nil, fmt.Errorf("protobuf: body size was %d, but %d bytes were written", bodySize, len(dst)-start)
	}
	return appendEnvelopeTail(dst), nil
}

// appendEnvelopeHead appends what an envelope holds before a body of
// bodySize bytes: the magic bytes, typeMeta and raw's tag and length.
func appendEnvelopeHead(dst []byte, apiVersion, kind string, bodySize int) []byte {
	tm := protowire.SizeTag(1) + protowire.SizeBytes(len(apiVersion)) + protowire.SizeTag(2) + protowire.SizeBytes(len(kind))
	dst = append(dst, magic[:]...)
	dst = protowire.AppendTag(dst, 1, protowire.BytesType)
	dst = protowire.AppendVarint(dst, uint64(tm))
	dst = protowire.AppendTag(dst, 1, protowire.BytesType)
	dst = protowire.AppendString(dst, apiVersion)
	dst = protowire.AppendTag(dst, 2, protowire.BytesType)
	dst = protowire.AppendString(dst, kind)
	dst = protowire.AppendTag(dst, 2, protowire.BytesType)
	return protowire.AppendVarint(dst, uint64(bodySize))
}

// appendEnvelopeTail appends what an envelope holds after its body: the
// empty contentEncoding and contentType.
func appendEnvelopeTail(dst []byte) []byte {
	dst = protowire.AppendTag(dst, 3, protowire.BytesType)
	dst = protowire.AppendString(dst, "")
	dst = protowire.AppendTag(dst, 4, protowire.BytesType)
	return protowire.AppendString(dst, "")
}

// envelopeSize is the size of an envelope around a body of n bytes.
func envelopeSize(apiVersion, kind string, n int) int {
	tm := protowire.SizeTag(1) + protowire.SizeBytes(len(apiVersion)) + protowire.SizeTag(2) + protowire.SizeBytes(len(kind))
	return len(magic) + protowire.SizeTag(1) + protowire.SizeBytes(tm) + protowire.SizeTag(2) + protowire.SizeBytes(n) + 2*(protowire.SizeTag(3)+1)
}

// readEnvelope checks the magic bytes and reads the Unknown that follows,
// with the messages kube-apiserver's decoder gives for the same faults.
func readEnvelope(data []byte) (unknown, error) {
	var u unknown
	if err := checkMagic(data); err != nil {
		return u, err
	}
	err := walk(data[len(magic):], func(num protowire.Number, typ protowire.Type, b []byte) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			return walk(b, func(num protowire.Number, typ protowire.Type, b []byte) error {
				if typ == protowire.BytesType && num == 1 {
					u.apiVersion = string(b)
				} else if typ == protowire.BytesType && num == 2 {
					u.kind = string(b)
				}
				return nil
			})
		case 2:
			u.raw = b
		case 3:
			u.contentEncoding = string(b)
		}
		return nil
	})
	if err != nil {
		return u, err
	}
	if u.contentEncoding != "" {
		return u, fmt.Errorf("unsupported content encoding %q", u.contentEncoding)
	}
	return u, nil
}

// walk calls fn with each field of a message; b is the payload of
// length-delimited fields and nil for others.
func walk(msg []byte, fn func(num protowire.Number, typ protowire.Type, b []byte) error) error {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return wireError(n)
		}
		msg = msg[n:]
		var b []byte
		if typ == protowire.BytesType {
			b, n = protowire.ConsumeBytes(msg)
		} else {
			n = protowire.ConsumeFieldValue(num, typ, msg)
		}
		if n < 0 {
			return wireError(n)
		}
		msg = msg[n:]
		if err := fn(num, typ, b); err != nil {
			return err
		}
	}
	return nil
}

// wireError describes a negative protowire length.
func wireError(n int) error {
	return fmt.Errorf("protobuf: %w", protowire.ParseError(n))
}

// checkMagic checks that data starts with the magic bytes and has a body.
func checkMagic(data []byte) error {
	switch {
	case len(data) == 0:
		return errors.New("empty data")
	case len(data) < len(magic) || !bytes.Equal(data[:len(magic)], magic[:]):
		return fmt.Errorf("provided data does not appear to be a protobuf message, expected prefix %v", magic[:])
	case len(data) == len(magic):
		return errors.New("empty body")
	}
	return nil
}

// envelopeRaw is readEnvelope(data).raw without reading the type's
// strings, so that it allocates nothing: what a list reads per item.
func envelopeRaw(data []byte) ([]byte, error) {
	if err := checkMagic(data); err != nil {
		return nil, err
	}
	var raw []byte
	encoded := false
	err := walk(data[len(magic):], func(num protowire.Number, typ protowire.Type, b []byte) error {
		if typ == protowire.BytesType {
			switch num {
			case 2:
				raw = b
			case 3:
				encoded = len(b) > 0
			}
		}
		return nil
	})
	if err == nil && encoded {
		_, err = readEnvelope(data) // for its message
	}
	return raw, err
}
