package fastfields

import "testing"

// TestPlainString checks every byte, alone and after plain ones,
// against what encoders write as it is inside a JSON string: printable
// ASCII but for the quote, the backslash and the HTML characters.
func TestPlainString(t *testing.T) {
	for b := range 256 {
		c := byte(b)
		want := c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
		for _, s := range []string{string([]byte{c}), "abc" + string([]byte{c}), string([]byte{c}) + "xyz"} {
			if got := plainString(s); got != want {
				t.Errorf("plainString(%q) = %v, want %v", s, got, want)
			}
		}
	}
	if !plainString("") {
		t.Error(`plainString("") is false`)
	}
}
