package cbor

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/internal/growth"
	"github.com/kapi-dev/kapi/meta"
)

// head is a CBOR head of major type major with argument n.
func head(major byte, n int) []byte {
	switch {
	case n < 24:
		return []byte{major<<5 | byte(n)}
	case n < 1<<8:
		return []byte{major<<5 | 24, byte(n)}
	case n < 1<<16:
		return []byte{major<<5 | 25, byte(n >> 8), byte(n)}
	}
	return []byte{major<<5 | 26, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
}

// inConfig wraps items, each unit, in {"spec": {"config": {"a": [...]}}}.
func inConfig(unit []byte, count int) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xa1, 0x64})
	b.WriteString("spec")
	b.Write([]byte{0xa1, 0x66})
	b.WriteString("config")
	b.Write([]byte{0xa1, 0x61, 'a'})
	b.Write(head(4, count))
	for range count {
		b.Write(unit)
	}
	return b.Bytes()
}

type typedObject struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            struct {
		Config     map[string]any `json:"config,omitempty"`
		Conditions []struct {
			Type               string    `json:"type"`
			Status             string    `json:"status"`
			LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty"`
		} `json:"conditions,omitempty"`
	} `json:"spec"`
}

// TestHostileBodiesAllocation decodes 1 MiB bodies packing the most data
// items into their bytes into the generic form run-time kinds use and into
// a Go type, and checks that decoding allocates at most a small constant
// per byte of body: bodies denser than the item budget are refused before
// they are decoded.
func TestHostileBodiesAllocation(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes bodies of 1 MiB")
	}
	const size = 1 << 20
	text := func(s string) []byte { return append(head(3, len(s)), s...) }
	keys := func() []byte {
		var b bytes.Buffer
		n := size / 12
		b.Write([]byte{0xa1, 0x64})
		b.WriteString("spec")
		b.Write([]byte{0xa1, 0x66})
		b.WriteString("config")
		b.Write(head(5, n))
		for i := range n {
			b.Write(text("k" + strings.Repeat("0", 6) + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676%26)) + string(rune('a'+i/17576%26))))
			b.WriteByte(0x00)
		}
		return b.Bytes()
	}
	tests := []struct {
		name  string
		body  []byte
		dense bool
	}{
		{"empty maps", inConfig([]byte{0xa0}, size), true},
		{"empty arrays", inConfig([]byte{0x80}, size), true},
		{"small integers", inConfig([]byte{0x07}, size), true},
		{"nulls", inConfig([]byte{0xf6}, size), true},
		{"empty strings", inConfig([]byte{0x60}, size), true},
		{"empty maps under an empty key", inConfig([]byte{0xa1, 0x60, 0xa0}, size/3), true},
		{"empty maps under a key", inConfig([]byte{0xa1, 0x69, 'k', 'e', 'y', 'k', 'e', 'y', 'k', 'e', 'y', 0xa0}, size/12), false},
		{"one-byte strings", inConfig(text("x"), size/2), true},
		{"three-byte strings", inConfig(text("xyz"), size/4), false},
		{"half-precision floats", inConfig([]byte{0xf9, 0x3e, 0x00}, size/3), true},
		{"single-precision floats", inConfig([]byte{0xfa, 0x3f, 0xc0, 0x00, 0x00}, size/5), false},
		{"nested arrays, many times", inConfig(append(bytes.Repeat([]byte{0x81}, 100), 0x80), size/101), true},
		{"many keys", keys(), false},
	}
	// A body is converted to JSON and decoded from it, so it costs the
	// generic CBOR value, the JSON text and the decoded value: YAML's
	// bound, twice JSON's.
	const perByte, typedPerByte = 128, 128
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, form := range []struct {
				name  string
				new   func() any
				limit float64
			}{
				{"map", func() any { return &map[string]any{} }, perByte},
				{"Unstructured", func() any { return &meta.Unstructured{} }, perByte},
				{"typed", func() any { return &typedObject{} }, typedPerByte},
			} {
				var err error
				got := growth.Allocated(func() { _, err = Serializer{}.Decode(tc.body, form.new()) })
				per := float64(got) / float64(len(tc.body))
				t.Logf("%-12s %d bytes: %.1f allocated per byte (error: %v)", form.name, len(tc.body), per, err)
				if per > form.limit {
					t.Errorf("%s: %.1f bytes allocated per byte of body, over %g", form.name, per, form.limit)
				}
				if tc.dense != errors.Is(err, ErrTooDense) {
					t.Errorf("%s: error %v, want too dense: %v", form.name, err, tc.dense)
				}
			}
		})
	}
}
