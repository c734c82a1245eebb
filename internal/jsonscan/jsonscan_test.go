package jsonscan

import "testing"

func TestObjectField(t *testing.T) {
	for _, tt := range []struct {
		doc, key, want string
		ok             bool
	}{
		{`{"a":1,"b":{"c":[1,"}"]},"d":"x"}`, "b", `{"c":[1,"}"]}`, true},
		{`{"a":1,"b":2}`, "a", `1`, true},
		{`{ "a" : "q\"}" , "b" : null }`, "b", `null`, true},
		{`{"a":1,"a":2}`, "a", `1`, true}, // the first occurrence
		{`{"\u0061":true}`, "a", `true`, true},
		{`{"b":{"a":1}}`, "a", ``, false}, // not nested
		{`{"a":1`, "b", ``, false},
		{`{"a" 1}`, "a", ``, false},
		{`[{"a":1}]`, "a", ``, false},
		{``, "a", ``, false},
		{`{"a":"unterminated}`, "a", ``, false},
	} {
		s, e, ok := ObjectField([]byte(tt.doc), tt.key)
		if ok != tt.ok || ok && tt.doc[s:e] != tt.want {
			t.Errorf("ObjectField(%s, %q) = %d, %d, %v; want %s, %v", tt.doc, tt.key, s, e, ok, tt.want, tt.ok)
		}
	}
}

func TestSkipValue(t *testing.T) {
	for _, tt := range []struct {
		doc  string
		want int
	}{
		{`"a\\"b`, 5},
		{`{"a":[1,{"b":"]"}]} ,`, 19},
		{`12.5e3,`, 6},
		{`true}`, 4},
		{`[1,2`, -1},
		{`"abc`, -1},
		{``, -1},
	} {
		if got := SkipValue([]byte(tt.doc), 0); got != tt.want {
			t.Errorf("SkipValue(%s) = %d, want %d", tt.doc, got, tt.want)
		}
	}
}
