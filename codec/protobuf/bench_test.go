package protobuf_test

import (
	"bytes"
	"testing"

	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/codec/protobuf"
)

// BenchmarkEncode compares protobuf with JSON on a Widget of about 1.9 KB
// of JSON; compare the two with benchstat or by ratio.
func BenchmarkEncode(b *testing.B) {
	w := sampleWidget()
	for _, ser := range []codec.Serializer{protobuf.New(), codec.JSON{}} {
		b.Run(ser.MediaType(), func(b *testing.B) {
			var buf bytes.Buffer
			if err := ser.Encode(&buf, w); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(buf.Len()))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if err := ser.Encode(&buf, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecode compares decoding the same Widget.
func BenchmarkDecode(b *testing.B) {
	for _, ser := range []codec.Serializer{protobuf.New(), codec.JSON{}} {
		b.Run(ser.MediaType(), func(b *testing.B) {
			var buf bytes.Buffer
			if err := ser.Encode(&buf, sampleWidget()); err != nil {
				b.Fatal(err)
			}
			data := buf.Bytes()
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var w widget
				if _, err := ser.Decode(data, &w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
