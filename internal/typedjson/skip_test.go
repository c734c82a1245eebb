package typedjson

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/meta"
)

func TestSkipping(t *testing.T) {
	d := New(thingType)
	skipping := d.Skipping("spec", "items")
	i8 := func(v int8) thingSpec { return thingSpec{I8: v} }
	for _, tc := range []struct {
		name, doc string
		ok        bool
		want      thing
	}{
		{"skipped members dropped", `{"kind":"K","spec":{"i8":1,"tags":["a"]},"items":[{}],"metadata":{"name":"a"}}`, true,
			thing{TypeMeta: meta.TypeMeta{Kind: "K"}, ObjectMeta: meta.ObjectMeta{Name: "a"}}},
		{"a skipped member is not held to its type", `{"spec":{"i8":128,"unknown":[1,{"a":null}]},"items":"x","kind":"K"}`, true,
			thing{TypeMeta: meta.TypeMeta{Kind: "K"}}},
		{"null", `{"spec":null,"items":null}`, true, thing{}},
		{"only at the top", `{"pspec":{"i8":1},"self":{"spec":{"i8":2},"items":[{"i8":3}]}}`, true,
			thing{PSpec: &thingSpec{I8: 1}, Self: &thing{Spec: i8(2), Items: []thingSpec{i8(3)}}}},
		{"repeated", `{"spec":{},"spec":{}}`, false, thing{}},
		{"a skipped member is delimited, not checked", `{"spec":{"i8":tru,"x":[1 2]},"kind":"K"}`, true, thing{TypeMeta: meta.TypeMeta{Kind: "K"}}},
		{"unterminated string", `{"spec":{"i8":"1}}`, false, thing{}},
		{"another value checked", `{"spec":nul}`, false, thing{}},
		{"cut short", `{"spec":{"i8":1`, false, thing{}},
		{"unknown members still refused", `{"spec":{},"other":1}`, false, thing{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got thing
			if ok := skipping.Decode([]byte(tc.doc), &got); ok != tc.ok {
				t.Fatalf("decoded: %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(thing{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	var full thing
	if !d.Decode([]byte(`{"spec":{"i8":1}}`), &full) || full.Spec.I8 != 1 {
		t.Errorf("the decoder skipping was made from skips too: %+v", full)
	}
}

func TestDecodePrefix(t *testing.T) {
	d := New(thingType)
	for _, tc := range []struct {
		doc  string
		end  int
		ok   bool
		kind string
	}{
		{`{"kind":"a"}`, 12, true, "a"},
		{`{"kind":"a"},{"x":1}`, 12, true, "a"},
		{` {"kind":"b"} }`, 13, true, "b"},
		{`{"kind":"a"`, 0, false, ""},
		{`{"kind":1}`, 0, false, ""},
		{`[1]`, 0, false, ""},
		{``, 0, false, ""},
	} {
		var got thing
		end, ok := d.DecodePrefix([]byte(tc.doc), &got)
		if end != tc.end || ok != tc.ok || got.Kind != tc.kind {
			t.Errorf("%s: end %d ok %v kind %q, want %d %v %q", tc.doc, end, ok, got.Kind, tc.end, tc.ok, tc.kind)
		}
	}
}
