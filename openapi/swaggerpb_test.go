package openapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAnyYAML checks the YAML text of extension values against what
// gnostic's YAML encoder writes for the same JSON (the examples module
// compares whole documents with gnostic itself).
func TestAnyYAML(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"string", `"list"`, "list\n"},
		{"bool", `true`, "true\n"},
		{"gvk list", `[{"group":"","kind":"Widget","version":"v1"}]`, "- group: \"\"\n  kind: Widget\n  version: v1\n"},
		{"nested", `{"a":[1,2],"b":{"c":{}},"d":[],"n":[["a"]],"o":null,"p":1.5e3}`,
			"a:\n    - 1\n    - 2\nb:\n    c: {}\nd: []\nn:\n    - - a\no: null\np: 1.5e3\n"},
		{"plain", `"self == oldSelf"`, "self == oldSelf\n"},
		{"colon space", `"a: b"`, "'a: b'\n"},
		{"dash space", `"- x"`, "'- x'\n"},
		{"literal", `"line1\nline2"`, "|-\n    line1\n    line2\n"},
		{"in a sequence", `[{"a":{"b":"c"},"d":["e"],"f":"x\ny"},"p\nq",[{"k":"v"}]]`,
			"- a:\n    b: c\n  d:\n    - e\n  f: |-\n    x\n    y\n- |-\n  p\n  q\n- - k: v\n"},
		{"literal in map", `{"h":"line1\nline2","z":"line\n"}`, "h: |-\n    line1\n    line2\nz: |\n    line\n"},
		{"bool string", `"true"`, "\"true\"\n"},
		{"int string", `"123"`, "\"123\"\n"},
		{"hex string", `"0x1F"`, "\"0x1F\"\n"},
		{"underscore int", `"1_000"`, "\"1_000\"\n"},
		{"date string", `"2001-12-14"`, "\"2001-12-14\"\n"},
		{"leading space", `" lead"`, "' lead'\n"},
		{"apostrophe", `"it's"`, "it's\n"},
		{"quoted start", `"'q' + self.x"`, "'''q'' + self.x'\n"},
		{"comment start", `"#x"`, "'#x'\n"},
		{"unicode", `"é"`, "é\n"},
		{"tab", `"tab\there"`, "\"tab\\there\"\n"},
		{"yaml 1.1 bool", `"y"`, "y\n"},
		{"empty", `""`, "\"\"\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, err := parseJSONNode([]byte(tc.json))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, anyYAML(n)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSwaggerProtobufKeepsOrder checks that named collections follow the
// JSON's key order and that oneof booleans are written even when false.
func TestSwaggerProtobufKeepsOrder(t *testing.T) {
	doc := []byte(`{"swagger":"2.0","definitions":{"b":{"additionalProperties":false},"a":{}}}`)
	got, err := SwaggerProtobuf(doc)
	if err != nil {
		t.Fatal(err)
	}
	// Document{swagger: "2.0", definitions: {b: {additionalProperties: {boolean: false}}, a: {}}}
	want := []byte{
		0x0a, 3, '2', '.', '0',
		0x4a, 19,
		0x0a, 10, 0x0a, 1, 'b', 0x12, 5, 0xaa, 0x01, 0x02, 0x10, 0x00,
		0x0a, 5, 0x0a, 1, 'a', 0x12, 0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
