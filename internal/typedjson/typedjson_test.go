package typedjson

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/meta"
	kjson "sigs.k8s.io/json"
)

// Types covering every kind the plan decodes, shaped like a kind.
type (
	label string
	inner struct {
		Note string `json:"note"`
	}
	thing struct {
		meta.TypeMeta   `json:",inline"`
		meta.ObjectMeta `json:"metadata,omitempty"`
		inner
		Spec   thingSpec          `json:"spec,omitempty"`
		Items  []thingSpec        `json:"items"`
		ByName map[string]item    `json:"byName"`
		Named  map[label]label    `json:"named"`
		Times  []meta.Time        `json:"times"`
		PTime  *meta.Time         `json:"ptime"`
		Nested [][]int16          `json:"nested"`
		PSpec  *thingSpec         `json:"pspec"`
		Fields *meta.FieldsV1     `json:"fieldsV1"`
		Skip   string             `json:"-"`
		Dash   string             `json:"-,"`
		Bad    string             `json:"a\u0001"` // invalid tag: named Bad
		hidden string             //nolint:unused
		Self   *thing             `json:"self"`
		Deep   map[string][]*item `json:"deep"`
	}
	thingSpec struct {
		I8   int8     `json:"i8"`
		I16  int16    `json:"i16"`
		I32  *int32   `json:"i32"`
		I    int      `json:"i"`
		U8   uint8    `json:"u8"`
		U64  uint64   `json:"u64"`
		F32  float32  `json:"f32"`
		F64  float64  `json:"f64"`
		B    *bool    `json:"b"`
		Tags []string `json:"tags"`
		Lbl  label    `json:"lbl"`
	}
	item struct {
		Name string `json:"name"`
		Port int32  `json:"port"`
	}
)

var thingType = reflect.TypeFor[*thing]()

// decodeBoth decodes doc with the fast path and with sigs.k8s.io/json,
// strict and trusted, and fails when the fast path accepted what either
// did not, or decoded it differently, or left a value behind on failing.
func decodeBoth(t *testing.T, d *Decoder, doc []byte) bool {
	t.Helper()
	var fast, strict, trusted thing
	ok := d.Decode(doc, &fast)
	problems, err := kjson.UnmarshalStrict(doc, &strict, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	terr := kjson.UnmarshalCaseSensitivePreserveInts(doc, &trusted)
	if !ok {
		if diff := cmp.Diff(thing{}, fast, cmp.AllowUnexported(thing{})); diff != "" {
			t.Fatalf("%s: the fast path gave up but left (-want +got):\n%s", doc, diff)
		}
		return false
	}
	if err != nil || len(problems) > 0 || terr != nil {
		t.Fatalf("%s: the fast path decoded what sigs.k8s.io/json refused: %v %v %v", doc, err, problems, terr)
	}
	if diff := cmp.Diff(strict, fast, cmp.AllowUnexported(thing{})); diff != "" {
		t.Fatalf("%s: decoded (-sigs.k8s.io/json +fast path):\n%s", doc, diff)
	}
	if diff := cmp.Diff(trusted, fast, cmp.AllowUnexported(thing{})); diff != "" {
		t.Fatalf("%s: decoded (-sigs.k8s.io/json, trusted +fast path):\n%s", doc, diff)
	}
	checkShared(t, d, doc, &fast)
	return true
}

// checkShared decodes doc with DecodeShared and with DecodeOwned,
// wanting what Decode gave (want). DecodeShared's value must stay so
// after doc's bytes are overwritten (its strings share a copy of the
// document); DecodeOwned's strings are cut from the document itself.
func checkShared(t *testing.T, d *Decoder, doc []byte, want *thing) {
	t.Helper()
	for _, owned := range []bool{false, true} {
		decode, name := d.DecodeShared, "DecodeShared"
		if owned {
			decode, name = d.DecodeOwned, "DecodeOwned"
		}
		own := bytes.Clone(doc)
		var got thing
		if !decode(own, &got) {
			t.Fatalf("%s: %s gave up where Decode did not", doc, name)
		}
		if !owned {
			for i := range own {
				own[i] = 'x'
			}
		}
		if diff := cmp.Diff(want, &got, cmp.AllowUnexported(thing{})); diff != "" {
			t.Fatalf("%s: %s decoded (-Decode +%s):\n%s", doc, name, name, diff)
		}
		if owned && got.Name != "" && strings.Contains(string(doc), `"name":"`+got.Name+`"`) && !within(got.Name, own) {
			t.Fatalf("%s: DecodeOwned made the name a string of its own", doc)
		}
	}
}

// within reports whether s points into b.
func within(s string, b []byte) bool {
	start, p := uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return p >= start && p < start+uintptr(len(b))
}

var corpus = []struct {
	doc  string
	fast bool // whether the fast path decodes it
}{
	{`{}`, true},
	{` {"kind":"Thing","apiVersion":"x/v1"} `, true},
	{`{"metadata":{"name":"a","labels":{"k":"v","e":""},"annotations":{},"creationTimestamp":"2024-01-02T03:04:05Z","deletionTimestamp":null,"generation":3,
	  "ownerReferences":[{"apiVersion":"v1","kind":"K","name":"n","uid":"u","controller":true}],"finalizers":[],
	  "managedFields":[{"manager":"m","operation":"Update","time":"2024-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{".":{},"f:a":{}}}}]}}`, true},
	{`{"spec":{"i8":-128,"i16":32767,"i32":7,"i":-9007199254740993,"u8":255,"u64":18446744073709551615,"f32":1.5e3,"f64":-0.25E-2,"b":false,"tags":["a","b"],"lbl":"x"}}`, true},
	{`{"note":"embedded","items":[{"i8":1},{}],"byName":{"a":{"name":"n","port":1},"b":null},"named":{"k":"v"}}`, true},
	{`{"times":["2024-01-02T03:04:05Z",null],"ptime":"2024-01-02T03:04:05+02:00","nested":[[1,2],[],null],"pspec":{"lbl":"q"}}`, true},
	{`{"fieldsV1":{"f:a":{"k:{\"name\":\"x\"}":{}}},"self":{"self":{"note":"n"}},"deep":{"a":[{"name":"x"},null]}}`, true},
	{`{"-":"dash","Bad":"b"}`, true},
	{`{"metadata":{"name":"caf\u00e9 \n"}, "spec":{"lbl":"日本"}}`, true},
	{"{\"spec\":{\"lbl\":\"\xff\"}}", true},
	{"{\"spec\":{\"lbl\":\"\x01\"}}", false},
	{`{"items":null,"byName":null,"ptime":null,"pspec":null,"spec":null,"metadata":{"labels":null}}`, true},
	{`{"spec":{"i32":null,"b":null,"tags":null}}`, true},
	// Left to the general decoder.
	{`{"unknown":1}`, false},
	{`{"Spec":{}}`, false},
	{`{"kind":"a","kind":"b"}`, false},
	{`{"metadata":{"labels":{"a":"1","a":"2"}}}`, false},
	{`{"spec":{"i8":128}}`, false},
	{`{"spec":{"u8":-1}}`, false},
	{`{"spec":{"i":1.0}}`, false},
	{`{"spec":{"i":1e2}}`, false},
	{`{"spec":{"i":01}}`, false},
	{`{"spec":{"i":"1"}}`, false},
	{`{"spec":{"f32":1e39}}`, false},
	{`{"spec":{"b":1}}`, false},
	{`{"spec":{"tags":"a"}}`, false},
	{`{"times":["yesterday"]}`, false},
	{`{"ptime":1}`, false},
	{`{"Skip":"x"}`, false},
	{`{"hidden":"x"}`, false},
	{`{"\u006bind":"x"}`, false},
	{`{"kind":"x"`, false},
	{`{"kind":"x"} x`, false},
	{`{"kind":"x",}`, false},
	{`{"items":[{},]}`, false},
	{`{"fieldsV1":{"a":tru}}`, false},
	{`{"fieldsV1":{"a":"\x01"}}`, false},
	{`{"fieldsV1":{"a":"\q"}}`, false},
	{`{"fieldsV1":{"a":[1 2]}}`, false},
	{`null`, false},
	{`[]`, false},
	{``, false},
	{`{"fieldsV1":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}`, false},
}

func TestDecodeMatchesSigsJSON(t *testing.T) {
	d := New(thingType)
	if d.Len() != 1 {
		t.Fatalf("compiled %d types, want 1", d.Len())
	}
	for _, tc := range corpus {
		if got := decodeBoth(t, d, []byte(tc.doc)); got != tc.fast {
			t.Errorf("%s: fast path decoded it: %v, want %v", tc.doc, got, tc.fast)
		}
	}
}

func TestNewLeavesOutTypes(t *testing.T) {
	type iface struct {
		A any `json:"a"`
	}
	type text struct {
		B textValue `json:"b"`
	}
	type str struct {
		A int `json:"a,string"`
	}
	type twice struct {
		A string
		B string `json:"A"`
	}
	type bytes struct {
		A []byte `json:"a"`
	}
	type embeddedPtr struct {
		*inner
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[*iface](), reflect.TypeFor[*text](), reflect.TypeFor[*str](), reflect.TypeFor[*twice](),
		reflect.TypeFor[*bytes](), reflect.TypeFor[*embeddedPtr](), reflect.TypeFor[*meta.Unstructured](),
		reflect.TypeFor[thing](),
	} {
		if d := New(typ); d.Len() != 0 {
			t.Errorf("New(%v) compiled it", typ)
		}
	}
}

type textValue struct{ s string }

func (v *textValue) UnmarshalText(b []byte) error { v.s = string(b); return nil }

func TestDecodeOtherTypeGivesUp(t *testing.T) {
	d := New(thingType)
	var s thingSpec
	if d.Decode([]byte(`{}`), &s) {
		t.Fatal("decoded a type it was not compiled for")
	}
}

func FuzzDecode(f *testing.F) {
	for _, tc := range corpus {
		f.Add([]byte(tc.doc))
	}
	d := New(thingType)
	f.Fuzz(func(t *testing.T, doc []byte) {
		decodeBoth(t, d, doc)
	})
}

func TestCompact(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{`{"f:spec":{".":{},"f:ports":{"k:{\"name\":\"a b\"}":{}}}}`, true},
		{`[1,-2.5e3,true,false,null,"x"]`, true},
		{`{}`, true},
		{`null`, true},
		{`{ "a":1}`, false},
		{`{"a":1} `, false},
		{"{\"a\":\n1}", false},
		{`{"a":"<"}`, false},
		{`{"a":"&"}`, false},
		{"{\"a\":\"\u2028\"}", false},
		{`{"a":1`, false},
		{`{"a":1}{}`, false},
		{``, false},
		{`{"a":"\q"}`, false},
	} {
		if got := Compact([]byte(tc.in)); got != tc.want {
			t.Errorf("Compact(%s) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzCompact checks that what Compact accepts, encoding/json's Compact
// with HTML escaping leaves as it is.
func FuzzCompact(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}]}`, `{ "a":1}`, `"<"`, `1e5`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !Compact(b) {
			return
		}
		out, err := json.Marshal(rawMessage(b))
		if err != nil || !bytes.Equal(out, b) {
			t.Fatalf("Compact(%q) but encoding/json wrote %q, %v", b, out, err)
		}
	})
}

type rawMessage []byte

func (m rawMessage) MarshalJSON() ([]byte, error) { return m, nil }

// BenchmarkDecode decodes an object with metadata and managedFields by
// the compiled plan and by sigs.k8s.io/json.
func BenchmarkDecode(b *testing.B) {
	doc := []byte(corpus[2].doc)
	d := New(thingType)
	b.Run("decoder=typed", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var v thing
			if !d.Decode(doc, &v) {
				b.Fatal("not decoded")
			}
		}
	})
	b.Run("decoder=sigs", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var v thing
			if _, err := kjson.UnmarshalStrict(doc, &v, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields); err != nil {
				b.Fatal(err)
			}
		}
	})
}
