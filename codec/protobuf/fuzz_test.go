package protobuf_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/kapi-dev/kapi/codec/protobuf"
	"github.com/kapi-dev/kapi/meta"
)

// FuzzDecode feeds arbitrary bytes to the decoder: it must not panic, and
// whatever it accepts must encode and decode back to the same value.
func FuzzDecode(f *testing.F) {
	s := protobuf.New()
	for _, v := range []any{sampleWidget(), &everything{Self: &everything{Str: "x"}, StrMap: map[string]string{"a": "b"}},
		&meta.Status{Code: 500, Details: &meta.StatusDetails{Causes: []meta.StatusCause{{Field: "f"}}}},
		&withProxies{Doc: doc(`{"title":"t","inner":{"count":1}}`), Docs: []doc{nil}, Extra: map[string]words{"k": {"v"}}}} {
		var buf bytes.Buffer
		if err := s.Encode(&buf, v); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte("k8s\x00"))
	f.Add(envelope([]byte{0xca, 0x01, 0x02, 0xca, 0x01}))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, like := range []any{&widget{}, &everything{}, &meta.Status{}, &meta.DeleteOptions{}, &withProxies{}} {
			v := reflect.New(reflect.TypeOf(like).Elem()).Interface()
			if _, err := s.Decode(data, v); err != nil {
				continue
			}
			var buf bytes.Buffer
			if err := s.Encode(&buf, v); err != nil {
				t.Fatalf("%T decoded but does not encode: %v", v, err)
			}
			again := reflect.New(reflect.TypeOf(like).Elem()).Interface()
			if _, err := s.Decode(buf.Bytes(), again); err != nil {
				t.Fatalf("%T: own encoding does not decode: %v", v, err)
			}
			// Compared as bytes: NaN floats are not equal to themselves.
			var buf2 bytes.Buffer
			if err := s.Encode(&buf2, again); err != nil || !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
				t.Fatalf("%T changed on a second round trip (%v):\n% x\n% x", v, err, buf.Bytes(), buf2.Bytes())
			}
		}
	})
}
