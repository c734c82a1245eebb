package typedjson

// Compact reports whether b is one JSON value that encoding/json's
// Marshal would write as it is, for a MarshalJSON method returning it:
// valid, without space between tokens, and without the characters it
// escapes in strings (<, > and &, U+2028 and U+2029).
func Compact(b []byte) bool {
	for _, c := range b {
		if c == '<' || c == '>' || c == '&' || c == 0xe2 {
			return false // 0xe2 starts U+2028 and U+2029, and others
		}
	}
	p := &parser{data: b, noSpace: true}
	return p.skip() && p.pos == len(b)
}
