package typedjson

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
)

// formThing is thing without floats, whose forms are left to the round
// trip.
type formThing struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	inner
	Spec   formSpec          `json:"spec,omitempty"`
	Items  []formSpec        `json:"items"`
	Times  []meta.Time       `json:"times,omitempty"`
	PTime  *meta.Time        `json:"ptime,omitempty"`
	Nested [][]int16         `json:"nested"`
	PSpec  *formSpec         `json:"pspec"`
	Fields *meta.FieldsV1    `json:"fieldsV1,omitempty"`
	Dash   string            `json:"-,"`
	Self   *formThing        `json:"self,omitempty"`
	Zero   meta.Time         `json:"zero,omitzero"`
	Named  label             `json:"named,omitempty"`
	Map    map[string]string `json:"map"`
	// Box is a struct without an IsZero method, left out when zero.
	Box formSpec `json:"box,omitzero"`
}

type formSpec struct {
	I8   int8     `json:"i8,omitempty"`
	I16  int16    `json:"i16"`
	I32  *int32   `json:"i32,omitempty"`
	I    int      `json:"i"`
	U8   uint8    `json:"u8,omitempty"`
	U64  uint64   `json:"u64"`
	B    *bool    `json:"b"`
	Tags []string `json:"tags,omitempty"`
}

var formCorpus = []string{
	`{}`,
	`{"kind":"K","apiVersion":"g/v1","metadata":{"name":"a","labels":{"k":"v"},"annotations":{},"creationTimestamp":"2024-01-02T03:04:05Z",
	  "ownerReferences":[{"apiVersion":"v1","kind":"K","name":"n","uid":"u","controller":true}],"finalizers":[],"generation":2,
	  "managedFields":[{"manager":"m","operation":"Update","time":"2024-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{".":{}}}}]}}`,
	`{"spec":{"i8":-1,"i16":0,"i32":0,"i":-9007199254740993,"u8":0,"u64":18446744073709551615,"b":false,"tags":[]}}`,
	`{"spec":{"u64":9223372036854775807,"tags":["a","<&>"]},"items":[],"nested":[[1],[],null],"pspec":{}}`,
	`{"note":"n","times":["2024-01-02T03:04:05Z",null],"ptime":null,"fieldsV1":{"f:a":{}},"self":{"self":{}},"zero":"2024-01-02T03:04:05Z","-":"d","named":"x","map":{}}`,
	`{"metadata":{"name":"caf\u00e9 \u2028"},"map":{"k":"v"}}`,
	`{"box":{}}`,
	`{"box":{"i16":1}}`,
	`{"box":{"tags":[]}}`,
	"{\"metadata\":{\"name\":\"\xff\"}}",
	"{\"map\":{\"\xff\":\"v\"}}",
}

// checkForm compares v's form with what decoding its encoding gives.
func checkForm(t *testing.T, d *Decoder, v *formThing) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want, err := patch.DecodeObject(b)
	if err != nil {
		t.Fatal(err)
	}
	got, nulls, ok := d.FormNulls(v, patch.DecodeValue)
	if diff := cmp.Diff(want, got); ok && diff != "" {
		t.Fatalf("%s: form (-want +got):\n%s", b, diff)
	}
	if ok && nulls != holdsNull(want) {
		t.Fatalf("%s: form reported with nulls %v", b, nulls)
	}
}

func TestFormMatchesRoundTrip(t *testing.T) {
	d := New(reflect.TypeFor[*formThing]())
	built := 0
	for _, doc := range formCorpus {
		var v formThing
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		checkForm(t, d, &v)
		if _, ok := d.Form(&v, patch.DecodeValue); ok {
			built++
		}
	}
	if built < len(formCorpus)-3 {
		t.Errorf("built %d forms of %d", built, len(formCorpus))
	}
	if _, ok := New(thingType).Form(&thing{}, patch.DecodeValue); ok {
		t.Error("built the form of a type with floats")
	}
}

func FuzzForm(f *testing.F) {
	fuzzFormThings(f, func(t *testing.T, d *Decoder, v *formThing) { checkForm(t, d, v) })
}

// fuzzFormThings runs check on the formThing each fuzzed document
// decodes to (by encoding/json), seeded with formCorpus.
func fuzzFormThings(f *testing.F, check func(*testing.T, *Decoder, *formThing)) {
	for _, doc := range formCorpus {
		f.Add([]byte(doc))
	}
	d := New(reflect.TypeFor[*formThing]())
	f.Fuzz(func(t *testing.T, doc []byte) {
		var v formThing
		if json.Unmarshal(doc, &v) != nil {
			return
		}
		check(t, d, &v)
	})
}

// TestFormBoxesValuesInSlabs: the strings and large integers of a form
// do not take an allocation each, and the values read back as what they
// box, each its own.
func TestFormBoxesValuesInSlabs(t *testing.T) {
	d := New(reflect.TypeFor[*formThing]())
	v := &formThing{Map: map[string]string{}}
	const n = 64
	for i := range n {
		v.Spec.Tags = append(v.Spec.Tags, string(rune('a'+i%26))+"x")
		v.Items = append(v.Items, formSpec{I: 1000 + i, U64: uint64(2000 + i)})
		v.Map[string(rune('a'+i%26))+string(rune('a'+i/26))] = "v"
	}
	checkForm(t, d, v)
	form, ok := d.Form(v, patch.DecodeValue)
	if !ok {
		t.Fatal("no form")
	}
	spec := form["spec"].(map[string]any)
	items := form["items"].([]any)
	for i := range n {
		if got := spec["tags"].([]any)[i]; got != v.Spec.Tags[i] {
			t.Errorf("tag %d is %v, want %q", i, got, v.Spec.Tags[i])
		}
		item := items[i].(map[string]any)
		if item["i"] != int64(1000+i) || item["u64"] != int64(2000+i) {
			t.Errorf("item %d is %v", i, item)
		}
	}
	// Strings and large integers more cost a slab per 16 of them, not an
	// allocation each.
	formAllocs := func(values int) float64 {
		w := &formThing{Nested: [][]int16{{}}}
		for i := range values {
			w.Spec.Tags = append(w.Spec.Tags, string(rune('a'+i%26)))
			w.Nested[0] = append(w.Nested[0], int16(1000+i))
			w.Nested = append(w.Nested, []int16{})
		}
		return testing.AllocsPerRun(10, func() { d.Form(w, patch.DecodeValue) })
	}
	few, many := formAllocs(n), formAllocs(4*n)
	// Each list's elements take an allocation of their own, not its
	// header too.
	if extra := many - few; extra > float64(3*n)*(1+3.0/16)+4 {
		t.Errorf("%d strings, integers and lists more take %v allocations more", 3*3*n, extra)
	}
}

// TestFormNulls: a form reports the nulls it holds, wherever they come
// from: nil pointers, slices and maps without omitempty, and what a
// MarshalJSON method writes.
func TestFormNulls(t *testing.T) {
	d := New(reflect.TypeFor[*formThing]())
	full := `"spec":{"b":false},"items":[],"nested":[],"pspec":{"b":true},"map":{}`
	for _, tc := range []struct {
		doc   string
		nulls bool
	}{
		{`{` + full + `}`, false},
		{`{` + full + `,"spec":{"b":true,"i32":1,"tags":["a"]},"times":["2024-01-02T03:04:05Z"]}`, false},
		{`{"spec":{},"items":[],"nested":[],"pspec":{"b":true},"map":{}}`, true}, // spec.b: nil pointer
		{`{"nested":[],"pspec":{"b":true},"map":{}}`, true},                      // items: nil slice
		{`{"items":[],"pspec":{"b":true},"map":{}}`, true},                       // nested: nil slice
		{`{"items":[],"nested":[],"map":{}}`, true},                              // pspec: nil pointer
		{`{"items":[],"nested":[],"pspec":{"b":true}}`, true},                    // map: nil map
		{`{"items":[],"nested":[],"pspec":{},"map":{}}`, true},                   // pspec.b: nil pointer
		{`{` + full + `,"items":[{"b":true}]}`, false},                           // an item of no nil
		{`{` + full + `,"items":[{}]}`, true},                                    // an item's b
		{`{` + full + `,"times":["2024-01-02T03:04:05Z",null]}`, true},           // a marshaler's null
		{`{` + full + `,"nested":[[1],null]}`, true},                             // a nested nil slice
		{`{` + full + `,"fieldsV1":{"f:a":{}}}`, false},                          // a marshaler's object
	} {
		var v formThing
		if err := json.Unmarshal([]byte(tc.doc), &v); err != nil {
			t.Fatalf("%s: %v", tc.doc, err)
		}
		_, nulls, ok := d.FormNulls(&v, patch.DecodeValue)
		if !ok || nulls != tc.nulls {
			t.Errorf("%s: nulls %v (form built: %v), want %v", tc.doc, nulls, ok, tc.nulls)
		}
	}
}
