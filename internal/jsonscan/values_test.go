package jsonscan

import (
	"maps"
	"testing"
)

func TestLookup(t *testing.T) {
	doc := []byte(`{"metadata":{"name":"a"},"spec":{"replicas":3,"tags":["x"]}}`)
	for _, tc := range []struct{ path, want string }{
		{".spec.replicas", "3"},
		{".metadata.name", `"a"`},
		{".spec.tags", `["x"]`},
		{".spec.missing", ""},
		{".spec.replicas.deeper", ""},
	} {
		if got := string(Lookup(doc, tc.path)); got != tc.want {
			t.Errorf("Lookup(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

func TestEachString(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want map[string]string
		ok   bool
	}{
		{`{}`, map[string]string{}, true},
		{`{"a":"1", "n":2, "b\u0041":"x\"y"}`, map[string]string{"a": "1", "bA": `x"y`}, true},
		{`{"a":"1",}`, map[string]string{"a": "1"}, false},
		{`["a"]`, map[string]string{}, false},
	} {
		got := map[string]string{}
		ok := EachString([]byte(tc.doc), func(k, v string) { got[k] = v })
		if ok != tc.ok || !maps.Equal(got, tc.want) {
			t.Errorf("EachString(%s) = %v, %v; want %v, %v", tc.doc, got, ok, tc.want, tc.ok)
		}
	}
}

func TestUnquote(t *testing.T) {
	for _, tc := range []struct {
		q, want string
		ok      bool
	}{
		{`"plain"`, "plain", true},
		{`"a\nb"`, "a\nb", true},
		{`"bad\x"`, "", false},
	} {
		if got, ok := Unquote([]byte(tc.q)); got != tc.want || ok != tc.ok {
			t.Errorf("Unquote(%s) = %q, %v; want %q, %v", tc.q, got, ok, tc.want, tc.ok)
		}
	}
}
