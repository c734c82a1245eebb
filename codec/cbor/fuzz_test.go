package cbor

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	kjson "sigs.k8s.io/json"

	"github.com/kapi-dev/kapi/meta"
)

// FuzzDecode feeds arbitrary bytes to the decoder. It must never panic;
// whatever it accepts must come out as valid JSON, and that JSON encoded
// back to CBOR must convert to the same value again (compared decoded:
// invalid UTF-8 in a byte string turns into an escaped U+FFFD the first
// time and a literal one the second).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"d9d9f7a14161 01", "a2416101416102", "bf416101ff", "f94000", "d64201 02", "c074323032352d30312d30325430333a30343a30355a",
		"9f0102ff", "1bffffffffffffffff", "6162", "62fffe", "f97e00", "e0", "c24101", "a1a0 01", "5f4161ff",
	} {
		b, _ := hex.DecodeString(stripSpaces(s))
		f.Add(b)
	}
	var buf bytes.Buffer
	_ = (Serializer{}).Encode(&buf, &meta.Unstructured{TypeMeta: meta.TypeMeta{APIVersion: "v1", Kind: "T"},
		Content: map[string]any{"spec": map[string]any{"a": []any{int64(1), 2.5, "x", nil, true}}}})
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		var u meta.Unstructured
		_, _ = (Serializer{}).Decode(data, &u)
		j, err := ToJSON(data)
		if err != nil {
			return
		}
		if !json.Valid(j) {
			t.Fatalf("invalid JSON %q from % x", j, data)
		}
		var v any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(j, &v); err != nil {
			t.Fatal(err)
		}
		var again bytes.Buffer
		if err := (Serializer{}).Encode(&again, v); err != nil {
			t.Fatalf("re-encoding %s: %v", j, err)
		}
		j2, err := ToJSON(again.Bytes())
		if err != nil {
			t.Fatalf("reading back %s: %v", j, err)
		}
		var v2 any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(j2, &v2); err != nil {
			t.Fatalf("JSON %s became %s (%v)", j, j2, err)
		}
		if diff := cmp.Diff(v, v2); diff != "" {
			t.Fatalf("JSON %s became %s (-before +after):\n%s", j, j2, diff)
		}
	})
}

func stripSpaces(s string) string {
	return string(bytes.ReplaceAll([]byte(s), []byte(" "), nil))
}
