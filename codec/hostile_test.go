package codec

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/internal/growth"
)

// plainYAML is an ordinary YAML document of about n bytes, about as dense
// in values as the value budget lets a body be: block mappings with
// shallow flow collections.
func plainYAML(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "- name: a%d\n  value: [1, {a: 1}]\n", i)
	}
	return b.Bytes()
}

// TestYAMLDecodeCost checks that no YAML body costs much more to decode
// than an ordinary document of its size and density: deep flow nesting once cost the
// parser time proportional to size times depth (25 KB nested 5,000 deep
// took most of a second).
func TestYAMLDecodeCost(t *testing.T) {
	deepMap := func(d int) string { return strings.Repeat("{a: ", d) + "1" + strings.Repeat("}", d) }
	deepSeq := func(d int) string { return strings.Repeat("[", d) + strings.Repeat("]", d) }
	deepJSON := func(d int) string { return strings.Repeat(`{"a":`, d) + "1" + strings.Repeat("}", d) }
	tests := []struct {
		name    string
		body    string
		tooDeep bool
	}{
		{"flow maps nested 5000 deep", "x: " + deepMap(5000), true},
		{"flow lists nested 9000 deep", "x: " + deepSeq(9000), true},
		{"flow maps nested to the limit, many times", strings.Repeat("- "+deepMap(MaxYAMLFlowDepth-1)+"\n", 25), false},
		{"JSON nested 9000 deep", deepJSON(9000), false},
		{"brackets in quoted scalars", strings.Repeat(`- "[[[{{{\"[[["`+"\n- '[[[''{{{'\n", 2000), false},
		{"brackets in comments", strings.Repeat("a: b # [[[[[[[[[[[[[[[[[[[[\n", 2000), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			var v any
			_, err := YAML{}.Decode(body, &v)
			if tc.tooDeep != errors.Is(err, ErrYAMLTooDeep) {
				t.Fatalf("error %v, want too deep: %v", err, tc.tooDeep)
			}
			plain := plainYAML(len(body))
			hostile := growth.CPU(func() { _, _ = YAML{}.Decode(body, &v) })
			ordinary := growth.CPU(func() { _, _ = YAML{}.Decode(plain, &v) })
			ratio := float64(hostile) / float64(ordinary)
			t.Logf("%d bytes: %v, an ordinary document of that size %v: ratio %.2f", len(body), hostile, ordinary, ratio)
			if ratio > 5 {
				t.Errorf("decoding costs %.1fx an ordinary document of the same size, want at most 5x", ratio)
			}
		})
	}
}

// TestYAMLEncodeSize checks that YAML output stays proportional to the
// object's JSON size, however deep the object: block style indents each
// level further, so a 54 KB object nested 9,000 deep once rendered as
// 243 MB.
func TestYAMLEncodeSize(t *testing.T) {
	for _, depth := range []int{1, MaxYAMLBlockDepth, MaxYAMLBlockDepth + 1, 9000} {
		var v any = "leaf"
		for range depth {
			v = map[string]any{"a": v}
		}
		var j, y bytes.Buffer
		if err := (JSON{}).Encode(&j, v); err != nil {
			t.Fatal(err)
		}
		if err := (YAML{}).Encode(&y, v); err != nil {
			t.Fatal(err)
		}
		if y.Len() > 16*j.Len() {
			t.Errorf("depth %d: %d bytes of YAML for %d of JSON", depth, y.Len(), j.Len())
		}
		var back any
		if _, err := (YAML{}).Decode(y.Bytes(), &back); err != nil {
			t.Fatalf("depth %d: decoding our YAML: %v", depth, err)
		}
		var again bytes.Buffer
		_ = (JSON{}).Encode(&again, back)
		if !bytes.Equal(again.Bytes(), j.Bytes()) {
			t.Errorf("depth %d: YAML round trip changed the object", depth)
		}
	}
}
