package codec

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/internal/growth"
	"github.com/kapi-dev/kapi/meta"
)

// hostileSize is the size of each hostile body: what a client may send in
// one request well under the 3 MiB limit.
const hostileSize = 1 << 20

// fill repeats unit between head and tail up to about hostileSize bytes,
// separated by sep.
func fill(head, unit, sep, tail string) []byte {
	var b bytes.Buffer
	b.WriteString(head)
	for i := 0; b.Len() < hostileSize; i++ {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(unit)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// hostileJSON are bodies that pack the most values, or the most costly
// ones, into their bytes.
func hostileJSON() []struct {
	name string
	body []byte
} {
	deep := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	longKey := strings.Repeat("k", 4096)
	keys := func() []byte {
		var b bytes.Buffer
		b.WriteString(`{"spec":{"config":{`)
		for i := 0; b.Len() < hostileSize; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"` + strings.Repeat("k", 8) + itoa(i) + `":0`)
		}
		b.WriteString(`}}}`)
		return b.Bytes()
	}
	return []struct {
		name string
		body []byte
	}{
		{"empty objects", fill(`{"spec":{"config":{"a":[`, "{}", ",", `]}}}`)},
		{"empty lists", fill(`{"spec":{"config":{"a":[`, "[]", ",", `]}}}`)},
		{"small integers", fill(`{"spec":{"config":{"a":[`, "7", ",", `]}}}`)},
		{"large integers", fill(`{"spec":{"config":{"a":[`, "123456789012", ",", `]}}}`)},
		{"floats", fill(`{"spec":{"config":{"a":[`, "1.5", ",", `]}}}`)},
		{"nulls and booleans", fill(`{"spec":{"config":{"a":[`, "null,true", ",", `]}}}`)},
		{"empty strings", fill(`{"spec":{"config":{"a":[`, `""`, ",", `]}}}`)},
		{"many short keys", keys()},
		{"long keys", fill(`{"spec":{"config":{`, `"`+longKey+`":{}`, ",", `}}}`)},
		{"deep nesting, many times", fill(`{"spec":{"config":{"a":[`, deep, ",", `]}}}`)},
		{"empty typed list items", fill(`{"spec":{"conditions":[`, "{}", ",", `]}}`)},
		{"typed strings", fill(`{"spec":{"tags":[`, `""`, ",", `]}}`)},
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{digits[i%10]}, b...)
	}
	return string(b)
}

// hostileYAML are bodies the YAML parser, not the JSON decoder, reads:
// dense values in block and flow style, nesting, and aliases.
func hostileYAML() []struct {
	name string
	body []byte
} {
	anchors := func() []byte {
		var b bytes.Buffer
		b.WriteString("spec:\n  config:\n    base: &b [" + strings.Repeat("1, ", 100) + "1]\n    refs:\n")
		for b.Len() < hostileSize {
			b.WriteString("    - *b\n")
		}
		return b.Bytes()
	}
	nestedAnchors := func() []byte {
		var b bytes.Buffer
		b.WriteString("spec:\n  config:\n    l0: &l0 [" + strings.Repeat("1, ", 9) + "1]\n")
		for i := 1; i < 9; i++ {
			b.WriteString("    l" + itoa(i) + ": &l" + itoa(i) + " [" + strings.Repeat("*l"+itoa(i-1)+", ", 9) + "*l" + itoa(i-1) + "]\n")
		}
		return b.Bytes()
	}
	return []struct {
		name string
		body []byte
	}{
		{"empty flow maps in a block list", fill("spec:\n  config:\n    a:\n", "    - {}", "\n", "\n")},
		{"empty flow lists in a block list", fill("spec:\n  config:\n    a:\n", "    - []", "\n", "\n")},
		{"small integers, flow", fill("spec: {config: {a: [", "7", ",", "]}}\n")},
		{"nulls, block", fill("spec:\n  config:\n    a:\n", "    - ~", "\n", "\n")},
		{"empty strings, flow", fill("spec: {config: {a: [", "''", ",", "]}}\n")},
		{"many short keys", fill("spec:\n  config:\n", "    k: 0", "\n", "\n")},
		{"block nesting", fill("spec:\n  config:\n    a:\n", "    - - - - - - - - - - - - - - - - - - - - 1", "\n", "\n")},
		{"flow nesting to the bound, many times", fill("spec: {config: {a: [", strings.Repeat("[", MaxYAMLFlowDepth-5)+strings.Repeat("]", MaxYAMLFlowDepth-5), ",", "]}}\n")},
		{"aliases of one anchor", anchors()},
		{"aliases of aliases", nestedAnchors()},
	}
}

// allocationPerByte decodes body with s into a new value of each form the
// server decodes into and returns the worst bytes allocated per body byte.
func allocationPerByte(t *testing.T, s Serializer, body []byte) (worst float64, form string) {
	forms := []struct {
		name string
		new  func() any
	}{
		{"map", func() any { return &map[string]any{} }},
		{"Unstructured", func() any { return &meta.Unstructured{} }},
		{"typed", func() any { return &fuzzObject{} }},
	}
	for _, f := range forms {
		var err error
		got := growth.Allocated(func() { _, err = s.Decode(body, f.new()) })
		per := float64(got) / float64(len(body))
		t.Logf("  %-12s %7.1f bytes allocated per body byte (error: %v)", f.name, per, shortErr(err))
		if per > worst {
			worst, form = per, f.name
		}
	}
	return worst, form
}

func shortErr(err error) string {
	if err == nil {
		return "none"
	}
	s := err.Error()
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

// The most a body may cost the decoder, in bytes allocated per byte of
// body, whatever the body, plus hostileFloor for small ones (the YAML
// library's own alias bound lets a few hundred bytes expand). Decoding
// into Go's generic form costs a map or slice header per value, and the
// YAML parser and conversion some hundred bytes per value: ordinary JSON
// costs about 10 per byte, ordinary YAML about 65.
const (
	maxJSONPerByte      = 64
	maxJSONTypedPerByte = 128 // the Go type's zero values dominate
	maxYAMLPerByte      = 128
	hostileFloor        = 1 << 20
)

// TestHostileBodiesAllocationJSONAndYAML decodes bodies made of many
// tiny or costly values into the generic form run-time kinds use (a map,
// Unstructured) and into a Go type, and checks that decoding allocates at
// most a small constant per byte of body. YAML bodies denser in values
// than the budget allows are refused before they are parsed.
func TestHostileBodiesAllocationJSONAndYAML(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 22 bodies of 1 MiB three times each")
	}
	check := func(t *testing.T, s Serializer, body []byte, perByte, typedPerByte float64) {
		worst, form := allocationPerByte(t, s, body)
		limit := perByte
		if form == "typed" {
			limit = typedPerByte
		}
		if got := worst * float64(len(body)); got > limit*float64(len(body))+hostileFloor {
			t.Errorf("%d bytes of %s: %.1f bytes allocated per byte decoding into %s, over %g", len(body), s.MediaType(), worst, form, limit)
		}
	}
	for _, tc := range hostileJSON() {
		t.Run("JSON/"+tc.name, func(t *testing.T) { check(t, JSON{}, tc.body, maxJSONPerByte, maxJSONTypedPerByte) })
	}
	for _, tc := range hostileYAML() {
		t.Run("YAML/"+tc.name, func(t *testing.T) { check(t, YAML{}, tc.body, maxYAMLPerByte, maxYAMLPerByte) })
	}
}

// TestOrdinaryYAMLFitsTheBudget checks that ordinary documents, however
// large, are far from the YAML value budget: a ConfigMap-like one with a
// short key and value per line, and manifests.
func TestOrdinaryYAMLFitsTheBudget(t *testing.T) {
	var cm bytes.Buffer
	cm.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n")
	for i := 0; cm.Len() < 2<<20; i++ {
		cm.WriteString("  k" + itoa(i) + ": v" + itoa(i) + "\n")
	}
	var list bytes.Buffer
	list.WriteString("items:\n")
	for i := 0; list.Len() < 2<<20; i++ {
		list.WriteString("- name: port-" + itoa(i) + "\n  port: " + itoa(i%65536) + "\n  protocol: TCP\n")
	}
	for name, doc := range map[string][]byte{"config map": cm.Bytes(), "list of objects": list.Bytes(), "plain": plainYAML(2 << 20)} {
		if err := CheckYAMLCost(doc); err != nil {
			t.Errorf("%s of %d bytes: %v", name, len(doc), err)
		}
		var v map[string]any
		got := growth.Allocated(func() { _, _ = YAML{}.Decode(doc, &v) })
		t.Logf("%s: %.1f bytes allocated per byte", name, float64(got)/float64(len(doc)))
	}
}
