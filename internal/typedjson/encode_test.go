package typedjson

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/internal/jsonscan"
	"github.com/kapi-dev/kapi/meta"
)

// checkEncode compares AppendJSON's encoding of v with Marshal's, byte
// for byte, and reports whether AppendJSON answered.
func checkEncode(t *testing.T, d *Decoder, v any) bool {
	t.Helper()
	want, err := json.Marshal(v)
	got, ok := d.AppendJSON([]byte("prefix"), v)
	if !ok {
		if string(got) != "prefix" {
			t.Fatalf("AppendJSON gave up but changed dst to %q", got)
		}
		return false
	}
	if err != nil {
		t.Fatalf("AppendJSON wrote %s where Marshal fails: %v", got, err)
	}
	if !bytes.Equal(got[len("prefix"):], want) {
		t.Fatalf("AppendJSON wrote\n%s\nMarshal\n%s", got[len("prefix"):], want)
	}
	// Where each top-level member was written, as a scan of the
	// encoding finds it.
	for _, member := range []string{"metadata", "spec", "pspec", "self", "zero", "box", "-", "nosuch"} {
		out, start, end, ok := d.AppendJSONMember([]byte("prefix"), v, member)
		if !ok || !bytes.Equal(out, got) {
			t.Fatalf("AppendJSONMember(%q) wrote %s, %v", member, out, ok)
		}
		wantStart, wantEnd, found := jsonscan.ObjectField(want, member)
		if !found {
			wantStart, wantEnd = -1-len("prefix"), -1-len("prefix")
		}
		if start-len("prefix") != wantStart || end-len("prefix") != wantEnd {
			t.Fatalf("%s: member %q at [%d, %d), want [%d, %d)", want, member, start, end, wantStart+len("prefix"), wantEnd+len("prefix"))
		}
	}
	return true
}

func TestAppendJSONMatchesMarshal(t *testing.T) {
	d := New(reflect.TypeFor[*formThing]())
	for _, doc := range formCorpus {
		var v formThing
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if !checkEncode(t, d, &v) {
			t.Errorf("%s: AppendJSON gave up", doc)
		}
	}
	if _, ok := New(thingType).AppendJSON(nil, &thing{}); ok {
		t.Error("encoded a type with floats")
	}
	if _, ok := d.AppendJSON(nil, &thing{}); ok {
		t.Error("encoded a type the decoder was not compiled for")
	}
	var nilThing *formThing
	if _, ok := d.AppendJSON(nil, nilThing); ok {
		t.Error("encoded a nil pointer")
	}
}

// TestAppendJSONRandom compares AppendJSON with Marshal on random
// values: strings with every kind of byte Marshal escapes (controls,
// quotes, <, > and &, invalid UTF-8, U+2028 and U+2029), nil and empty
// slices and maps, nil pointers, zero and non-zero times, and integers
// at their limits.
func TestAppendJSONRandom(t *testing.T) {
	d := New(reflect.TypeFor[*formThing]())
	r := rand.New(rand.NewPCG(19, 7))
	answered := 0
	for range 3000 {
		var v formThing
		fill(r, reflect.ValueOf(&v).Elem(), 0)
		if checkEncode(t, d, &v) {
			answered++
		}
	}
	if answered < 1000 {
		t.Errorf("AppendJSON answered %d of 3000", answered)
	}
	t.Logf("AppendJSON answered %d of 3000", answered)
}

var randomStrings = []string{"", "a", "caf\u00e9", "<&>", "a\"b\\c", "\x00\x01\x1f\x7f", "\b\f\n\r\t", "\xff", "x\xe2\x80", "\u2028\u2029", "\U0001F600", "k8s.io/name"}

// fill sets v, settable, to a random value of its type.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	if v.Type() == reflect.TypeFor[meta.Time]() {
		if r.IntN(2) == 0 {
			v.Set(reflect.ValueOf(meta.NewTime(time.Unix(r.Int64N(2e9), 0).UTC())))
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(randomStrings[r.IntN(len(randomStrings))])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt([]int64{0, 1, -1, 1 << 62, -1 << 63}[r.IntN(5)] >> (64 - v.Type().Bits()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint([]uint64{0, 1, 1 << 63, 1<<64 - 1}[r.IntN(4)] >> (64 - v.Type().Bits()))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(r, v.Field(i), depth+1)
			}
		}
	case reflect.Pointer:
		if depth < 6 && r.IntN(2) == 0 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(r, v.Elem(), depth+1)
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 { // FieldsV1's raw JSON
			v.SetBytes([]byte([]string{`{"f:a":{}}`, `{ "a" : 1 }`, `null`, `"<"`}[r.IntN(4)]))
			return
		}
		if n := r.IntN(4) - 1; n >= 0 && depth < 6 {
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				fill(r, v.Index(i), depth+1)
			}
		}
	case reflect.Map:
		if n := r.IntN(5) - 1; n >= 0 {
			v.Set(reflect.MakeMap(v.Type()))
			for range n {
				k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
				fill(r, k, depth+1)
				fill(r, e, depth+1)
				v.SetMapIndex(k, e)
			}
		}
	}
}

// FuzzAppendJSON compares AppendJSON with Marshal on the values fuzzed
// documents decode to.
func FuzzAppendJSON(f *testing.F) {
	fuzzFormThings(f, func(t *testing.T, d *Decoder, v *formThing) { checkEncode(t, d, v) })
}
