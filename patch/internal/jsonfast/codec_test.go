package jsonfast

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// referenceDecode is the encoding/json decoding the fast reader stands in
// for.
func referenceDecode(data []byte) (any, error) {
	if !json.Valid(data) {
		var raw json.RawMessage
		return nil, json.Unmarshal(data, &raw)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return ConvertNumbers(v)
}

func checkCodec(t *testing.T, data []byte) {
	want, werr := referenceDecode(data)
	got, gerr := Decode(data)
	if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
		t.Fatalf("decode %q: error %v, want %v", data, gerr, werr)
	}
	if werr != nil {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decode %q: %#v, want %#v", data, got, want)
	}
	b, err := Encode(got)
	wb, werr := json.Marshal(want)
	if (err == nil) != (werr == nil) || !bytes.Equal(b, wb) {
		t.Fatalf("encode %#v: %s (%v), want %s (%v)", got, b, err, wb, werr)
	}
}

func TestCodec(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `null`, `true`, ` {"a" : [1, -0, 0.5, 1e3, -1E-7, 12345678901234567890, 1e400] } `,
		`{"a":1,"a":2}`, `"\u00e9\ud83d\ude00\ud800x"`, `"<&>\u2028\u2029\t\n\\\"\u0001"`, "\"\xff\xfe\"",
		`{"a":}`, `[1,]`, `01`, `1.`, `-`, `"\x"`, `{"a":1}x`, `nul`, `1e`, `[1 2]`, `{"a" 1}`, "\"a\x01\"",
		`[1e-7,1e21,1e20,123456789.123,-0.0,5e-324]`,
	} {
		checkCodec(t, []byte(s))
	}
}

func FuzzCodec(f *testing.F) {
	f.Add([]byte(`{"a":[1,2.5,"x\u00e9",null,true,{"b":-1e-9}]}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkCodec(t, data) })
}
