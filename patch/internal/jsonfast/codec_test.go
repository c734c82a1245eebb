package jsonfast

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	checkOmitting(t, data, werr)
	if werr != nil {
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("decode %q (-want +got):\n%s", data, diff)
	}
	b, err := Encode(got)
	wb, werr := json.Marshal(want)
	if (err == nil) != (werr == nil) || !bytes.Equal(b, wb) {
		t.Fatalf("encode %#v: %s (%v), want %s (%v)", got, b, err, wb, werr)
	}
}

// checkOmitting checks DecodeOmitting of metadata.managedFields against
// the reference decoding of data, with that member deleted, or its error
// werr.
func checkOmitting(t *testing.T, data []byte, werr error) {
	t.Helper()
	got, err := DecodeOmitting(data, "metadata", "managedFields")
	if (werr == nil) != (err == nil) || (werr != nil && werr.Error() != err.Error()) {
		t.Fatalf("decode %q omitting: error %v, want %v", data, err, werr)
	}
	if werr != nil {
		return
	}
	want, _ := referenceDecode(data)
	if m, ok := want.(map[string]any); ok {
		if md, ok := m["metadata"].(map[string]any); ok {
			delete(md, "managedFields")
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("decode %q omitting (-want +got):\n%s", data, diff)
	}
}

func TestCodec(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `null`, `true`, ` {"a" : [1, -0, 0.5, 1e3, -1E-7, 12345678901234567890, 1e400] } `,
		`{"a":1,"a":2}`, `"\u00e9\ud83d\ude00\ud800x"`, `"<&>\u2028\u2029\t\n\\\"\u0001"`, "\"\xff\xfe\"",
		`{"a":}`, `[1,]`, `01`, `1.`, `-`, `"\x"`, `{"a":1}x`, `nul`, `1e`, `[1 2]`, `{"a" 1}`, "\"a\x01\"",
		`[1e-7,1e21,1e20,123456789.123,-0.0,5e-324]`,
		// What DecodeOmitting leaves out, and what it must keep.
		`{"metadata":{"name":"a","managedFields":[{"manager":"m","fieldsV1":{"f:spec":{"f:x":{}}}}],"uid":"u"},"spec":{"managedFields":1}}`,
		`{"metadata":{"managedFields":1,"managedFields":"x"},"managedFields":[]}`,
		`{"metadata":{"managed\u0046ields":[true,false,null,-1.5e3,"\u00e9\n"]}}`,
		`{"metadata":[{"managedFields":1}],"x":{"metadata":{"managedFields":2}}}`,
		`{"metadata":{"a":1},"metadata":{"managedFields":{}}}`, `{"metadata":{"managedFields":{}},"metadata":5}`,
		`[{"metadata":{"managedFields":1}}]`, `{"metadata":{"managedFields":[1e400]}}`,
		`{"metadata":{"managedFields":[1,]}}`, `{"metadata":{"managedFields":"\x"}}`, `{"metadata":{"managedFields":{"a" 1}}}`,
		"{\"metadata\":{\"managedFields\":\"a\x01\"}}", `{"metadata":{"managedFields":"\ud800"}}`, `{"metadata":{"managedFields":nul}}`,
	} {
		checkCodec(t, []byte(s))
	}
}

func FuzzCodec(f *testing.F) {
	f.Add([]byte(`{"a":[1,2.5,"x\u00e9",null,true,{"b":-1e-9}]}`))
	f.Fuzz(func(t *testing.T, data []byte) { checkCodec(t, data) })
}
