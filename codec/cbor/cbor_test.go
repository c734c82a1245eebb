package cbor

import (
	"bytes"
	"encoding/hex"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/meta"
)

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type sample struct {
	Name    string            `json:"name"`
	Count   int32             `json:"count,omitempty"`
	Ratio   float64           `json:"ratio,omitempty"`
	Data    []byte            `json:"data,omitempty"`
	Tags    []string          `json:"tags"`
	Labels  map[string]string `json:"labels,omitempty"`
	When    meta.Time         `json:"when"`
	Skipped string            `json:"-"`
}

func TestEncode(t *testing.T) {
	at := meta.NewTime(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	tests := []struct {
		name string
		in   any
		want string // hex, after the d9d9f7 prefix
	}{
		{"int", int64(-1), "20"},
		{"string is a byte string", "hi", "42 6869"},
		{"map keys sorted shortest first", map[string]any{"bb": int64(1), "a": true}, "a2 4161 f5 426262 01"},
		{"integral float keeps float16", 2.0, "f9 4000"},
		{"float32-exact value", 1.5, "f9 3e00"},
		{"float64 only", 0.1, "fb 3fb999999999999a"},
		{"[]byte tagged for base64", []byte{1, 2}, "d6 42 0102"},
		{"nil slice is null", []string(nil), "f6"},
		{"empty slice is an empty array", []string{}, "80"},
		{"zero meta.Time is null", meta.Time{}, "f6"},
		{"meta.Time is an RFC 3339 byte string", at, "54" + hex.EncodeToString([]byte("2025-01-02T03:04:05Z"))},
		{"struct by json tags", &sample{Name: "n", Count: 2, Tags: nil, When: at, Skipped: "x"},
			"a4 446e616d65 416e 4474616773 f6 4477686 56e 54" + hex.EncodeToString([]byte("2025-01-02T03:04:05Z")) + " 45636f756e74 02"},
		{"MarshalJSON types are transcoded", &meta.FieldsV1{Raw: []byte(`{"f:b":{},"f:a":1}`)}, "a2 43663a61 01 43663a62 a0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := (Serializer{}).Encode(&buf, tc.in); err != nil {
				t.Fatal(err)
			}
			want := append([]byte{0xd9, 0xd9, 0xf7}, mustHex(t, tc.want)...)
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("got  % x\nwant % x", buf.Bytes(), want)
			}
		})
	}
}

func TestEncodeRejects(t *testing.T) {
	for name, v := range map[string]any{
		"NaN":      map[string]any{"x": math.NaN()},
		"Inf":      []float64{math.Inf(1)},
		"bad JSON": &meta.FieldsV1{Raw: []byte(`{"a":`)},
	} {
		if err := (Serializer{}).Encode(&bytes.Buffer{}, v); err == nil {
			t.Errorf("%s: encoded", name)
		}
	}
}

func TestToJSON(t *testing.T) {
	tests := []struct {
		name, in, want, err string
	}{
		{"self-described tag is optional", "d9d9f7 a1 4161 01", `{"a":1}`, ""},
		{"without the tag", "a1 6161 01", `{"a":1}`, ""},
		{"integral float stays a float", "f9 4000", "2.0", ""},
		{"float", "fb 3fb999999999999a", "0.1", ""},
		{"large integral float", "fb 4415af1d78b58c40", "100000000000000000000.0", ""},
		{"huge float", "fb 7e37e43c8800759c", "1e+300", ""},
		{"negative int", "38 63", "-100", ""},
		{"byte string tagged base64", "d6 42 0102", `"AQI="`, ""},
		{"plain byte string is the text", "43 616263", `"abc"`, ""},
		{"time tag to RFC 3339", "c0 74" + hex.EncodeToString([]byte("2025-01-02T03:04:05Z")), `"2025-01-02T03:04:05Z"`, ""},
		{"unknown tag keeps its content", "d8 63 01", "1", ""},
		{"indefinite-length map", "bf 4161 01 ff", `{"a":1}`, ""},
		{"nested", "a2 4161 82 f5 f6 4162 a0", `{"a":[true,null],"b":{}}`, ""},
		{"escapes", "62 22 5c", `"\"\\"`, ""},
		{"duplicate key", "a2 4161 01 4161 02", "", "duplicate map key"},
		{"duplicate key text and bytes", "a2 4161 01 6161 02", "", "duplicate map key"},
		{"invalid UTF-8 text", "62 fffe", "", "invalid UTF-8"},
		{"NaN", "f9 7e00", "", "NaN"},
		{"infinity", "f9 7c00", "", "infinity"},
		{"uint beyond int64", "1b ffffffffffffffff", "", "overflows"},
		{"bignum", "c2 41 01", "", "bignum"},
		{"simple value", "e0", "", "simple value"},
		{"undefined", "f7", "", "simple value"},
		{"trailing bytes", "01 01", "", "extraneous data"},
		{"truncated", "a2 4161", "", "unexpected EOF"},
		{"empty", "", "", "EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ToJSON(mustHex(t, tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %s, %v; want error containing %q", got, err, tc.err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("got %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

type outer struct {
	Spec inner `json:"spec"`
}

type inner struct {
	Replicas int32  `json:"replicas"`
	Data     []byte `json:"data"`
}

func TestDecode(t *testing.T) {
	enc := func(v any) []byte {
		var buf bytes.Buffer
		if err := (Serializer{}).Encode(&buf, v); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	t.Run("unknown fields are strict errors with paths", func(t *testing.T) {
		var o outer
		strict, err := (Serializer{}).Decode(enc(map[string]any{"spec": map[string]any{"replicas": int64(2), "foo": "x"}, "bar": true}), &o)
		if err != nil || o.Spec.Replicas != 2 {
			t.Fatalf("%+v %v", o, err)
		}
		var msgs []string
		for _, e := range strict {
			msgs = append(msgs, e.Error())
		}
		if got := strings.Join(msgs, "; "); got != `unknown field "bar"; unknown field "spec.foo"` {
			t.Errorf("strict: %s", got)
		}
	})
	t.Run("bytes round trip through base64", func(t *testing.T) {
		var o outer
		if _, err := (Serializer{}).Decode(enc(outer{Spec: inner{Data: []byte{0, 1, 255}}}), &o); err != nil || !bytes.Equal(o.Spec.Data, []byte{0, 1, 255}) {
			t.Errorf("%v %v", o.Spec.Data, err)
		}
	})
	t.Run("a float is not an integer", func(t *testing.T) {
		var o outer
		if _, err := (Serializer{}).Decode(enc(map[string]any{"spec": map[string]any{"replicas": 2.0}}), &o); err == nil {
			t.Errorf("decoded 2.0 into int32: %+v", o)
		}
	})
	t.Run("meta.Time", func(t *testing.T) {
		at := meta.NewTime(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
		var s sample
		if _, err := (Serializer{}).Decode(enc(&sample{Name: "n", When: at}), &s); err != nil || !s.When.Equal(at.Time) {
			t.Errorf("%v %v", s.When, err)
		}
	})
	t.Run("unstructured keeps floats apart from integers", func(t *testing.T) {
		u := &meta.Unstructured{TypeMeta: meta.TypeMeta{APIVersion: "v1", Kind: "Thing"}, ObjectMeta: meta.ObjectMeta{Name: "t"},
			Content: map[string]any{"spec": map[string]any{"f": 2.0, "i": int64(2)}}}
		var back meta.Unstructured
		if _, err := (Serializer{}).Decode(enc(u), &back); err != nil {
			t.Fatal(err)
		}
		spec := back.Content["spec"].(map[string]any)
		if _, ok := spec["f"].(float64); !ok {
			t.Errorf("f: %T", spec["f"])
		}
		if _, ok := spec["i"].(int64); !ok {
			t.Errorf("i: %T", spec["i"])
		}
		if back.Name != "t" || back.Kind != "Thing" {
			t.Errorf("%+v", back)
		}
	})
	t.Run("malformed is an error, not a strict error", func(t *testing.T) {
		strict, err := (Serializer{}).Decode(mustHex(t, "a2 4161 01 4161 02"), &outer{})
		if err == nil || strict != nil {
			t.Errorf("%v %v", strict, err)
		}
	})
}

func TestAppendEvent(t *testing.T) {
	obj := mustHex(t, "d9d9f7 a0")
	got := (Serializer{}).AppendEvent([]byte{0x01}, "ADDED", obj)
	want := mustHex(t, "01 d9d9f7 a2 4474797065 454144444544 466f626a656374 d9d9f7a0")
	if !bytes.Equal(got, want) {
		t.Errorf("got  % x\nwant % x", got, want)
	}
	if (Serializer{}).StreamMediaType() != "application/cbor-seq" || (Serializer{}).MediaType() != "application/cbor" {
		t.Error("media types")
	}
}

func TestEncodeListNilItems(t *testing.T) {
	var buf bytes.Buffer
	if err := (Serializer{}).Encode(&buf, &meta.List{}); err != nil {
		t.Fatal(err)
	}
	// {"items": null, "metadata": {}}
	if want := mustHex(t, "d9d9f7 a2 456974656d73 f6 486d65746164617461 a0"); !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("got % x", buf.Bytes())
	}
}

func TestAppendHead(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		want string
	}{{0, "40"}, {23, "57"}, {24, "5818"}, {255, "58ff"}, {256, "590100"}, {65536, "5a00010000"}, {1 << 32, "5b0000000100000000"}} {
		if got := hex.EncodeToString(appendHead(nil, majorByteString, tc.n)); got != tc.want {
			t.Errorf("%d: %s, want %s", tc.n, got, tc.want)
		}
	}
}
