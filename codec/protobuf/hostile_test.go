package protobuf_test

import (
	"bytes"
	"strings"
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

// wide has many fields of which few are always written, as
// apiextensions' JSONSchemaProps has: its structs are large next to its
// smallest encoding.
type wide struct {
	A     string          `protobuf:"bytes,1,opt,name=a"`
	B     string          `protobuf:"bytes,2,opt,name=b"`
	C     string          `protobuf:"bytes,3,opt,name=c"`
	D     string          `protobuf:"bytes,4,opt,name=d"`
	Flag  bool            `protobuf:"varint,5,opt,name=flag"`
	P1    *int64          `protobuf:"varint,6,opt,name=p1"`
	P2    *int64          `protobuf:"varint,7,opt,name=p2"`
	P3    *float64        `protobuf:"fixed64,8,opt,name=p3"`
	P4    *float64        `protobuf:"fixed64,9,opt,name=p4"`
	L1    []string        `protobuf:"bytes,10,rep,name=l1"`
	L2    []string        `protobuf:"bytes,11,rep,name=l2"`
	L3    []string        `protobuf:"bytes,12,rep,name=l3"`
	Items []wide          `protobuf:"bytes,13,rep,name=items"`
	Props map[string]wide `protobuf:"bytes,14,rep,name=props"`
	Not   *wide           `protobuf:"bytes,15,opt,name=not"`
	S1    *string         `protobuf:"bytes,16,opt,name=s1"`
	S2    *string         `protobuf:"bytes,17,opt,name=s2"`
}

// TestBudgetFollowsTheType decodes a large body of wide messages as
// generated code writes them (every string and bool, even empty): it
// goes through, though each takes more memory per byte than allocPerByte;
// as many empty messages, which generated code never writes for the
// type, do not.
func TestBudgetFollowsTheType(t *testing.T) {
	s := protobuf.New()
	const n = 50000
	v := &wide{Items: make([]wide, n)}
	data := encode(t, s, v)
	var back wide
	if _, err := s.Decode(data, &back); err != nil || len(back.Items) != n {
		t.Fatalf("%d bytes of generated messages: %d items, %v", len(data), len(back.Items), err)
	}
	field := protowire.AppendTag(nil, 13, protowire.BytesType)
	empty := envelope(bytes.Repeat(protowire.AppendBytes(field, nil), n))
	if _, err := s.Decode(empty, &back); err == nil || !strings.Contains(err.Error(), "decodes to more than") {
		t.Errorf("%d bytes of empty messages: %v, want the allocation bound", len(empty), err)
	}
}
