package protobuf_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/kapi-dev/kapi/codec/protobuf"
	"github.com/kapi-dev/kapi/internal/growth"
)

// TestHostileBodiesAllocation decodes bodies made of many empty or nested
// messages, each a few bytes of body but a whole struct in memory, and
// checks that decoding allocates at most a small multiple of the body's
// size: it fails before, or allocates little.
func TestHostileBodiesAllocation(t *testing.T) {
	const size = 1 << 20
	repeat := func(unit []byte) []byte { return bytes.Repeat(unit, size/len(unit)) }
	field := func(num protowire.Number, payload []byte) []byte {
		b := protowire.AppendTag(nil, num, protowire.BytesType)
		return protowire.AppendBytes(b, payload)
	}
	nested := func(num protowire.Number, levels int) []byte {
		var b []byte
		for range levels {
			b = field(num, b)
		}
		return b
	}
	tests := []struct {
		name string
		body []byte
	}{
		{"empty repeated messages", repeat(field(20, nil))},
		{"empty map entries of messages", repeat(field(23, field(2, nil)))},
		{"empty repeated times", repeat(field(28, nil))},
		{"nested optional messages, many times", repeat(nested(16, 3))},
		{"a recursive message nested 900 deep, many times", repeat(nested(25, 900))},
		{"empty repeated messages inside nested ones", repeat(field(25, field(25, bytes.Repeat(field(20, nil), 100))))},
	}
	const perByte = 24 // the decoder's bound of 8, with slack for what it does not count
	s := protobuf.New()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := envelope(tc.body)
			var err error
			got := growth.Allocated(func() {
				var v everything
				_, err = s.Decode(data, &v)
			})
			t.Logf("%d bytes of body: %d allocated (%.1f per byte), error %v", len(data), got, float64(got)/float64(len(data)), err)
			if got > perByte*uint64(len(data)) {
				t.Errorf("decoding allocated %d bytes for %d of body, more than %d per byte", got, len(data), perByte)
			}
		})
	}
}
