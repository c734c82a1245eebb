package jsonstr

import (
	"encoding/json"
	"testing"
)

// TestAppendMatchesMarshal wants Marshal's bytes for strings that take
// every branch: plain, short escapes, other control bytes, HTML
// characters, invalid UTF-8, U+2028 and U+2029, multi-byte runes.
func TestAppendMatchesMarshal(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " and \ backslash`, "\b\f\n\r\t", "\x00\x01\x1f\x7f",
		"<a href='x'>&amp;</a>", "bad \xff byte", "\xe2\x80", "line\u2028para\u2029end",
		"héllo, 世界 🚀",
	} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := Append([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("Append(%q) = %s, want %s", s, got[1:], want)
		}
	}
}

func FuzzAppend(f *testing.F) {
	f.Add("a\u2028<\xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := Append(nil, s); string(got) != string(want) {
			t.Errorf("Append(%q) = %s, want %s", s, got, want)
		}
	})
}
