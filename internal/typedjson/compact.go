package typedjson

// Compact reports whether b is one JSON value that encoding/json's
// Marshal would write as it is, for a MarshalJSON method returning it:
// valid, without space between tokens, and without the characters it
// escapes in strings (<, > and &, U+2028 and U+2029).
//
// Every managedFields entry a server writes is checked so (its fieldsV1
// is most of an object's metadata), so this is a scanner of its own,
// which needs neither the parser's space skipping nor recursion: a stack
// of the containers open, and a loop that reads a value and then what
// closes or follows it.
func Compact(b []byte) bool {
	var closing [maxDepth]byte // the closing byte of each open container
	depth, i := 0, 0
	for {
		// A value at i.
		if i >= len(b) {
			return false
		}
		switch c := b[i]; c {
		case '"':
			if i = compactString(b, i); i < 0 {
				return false
			}
		case '{', '[':
			if depth == maxDepth {
				return false
			}
			closing[depth] = c + 2 // '}' and ']' follow '{' and '[' by two
			depth++
			i++
			if i < len(b) && b[i] == c+2 {
				depth--
				i++
				break
			}
			if c == '{' {
				if i = compactKey(b, i); i < 0 {
					return false
				}
			}
			continue
		case 't':
			if i = literalAt(b, i, "true"); i < 0 {
				return false
			}
		case 'f':
			if i = literalAt(b, i, "false"); i < 0 {
				return false
			}
		case 'n':
			if i = literalAt(b, i, "null"); i < 0 {
				return false
			}
		default:
			if i = numberAt(b, i); i < 0 {
				return false
			}
		}
		// After a value: the containers it closes, then a comma and the
		// next member or element, or the end.
		for depth > 0 && i < len(b) && b[i] == closing[depth-1] {
			depth--
			i++
		}
		if depth == 0 {
			return i == len(b)
		}
		if i >= len(b) || b[i] != ',' {
			return false
		}
		i++
		if closing[depth-1] == '}' {
			if i = compactKey(b, i); i < 0 {
				return false
			}
		}
	}
}

// compactKey reads a member's name at b[i] and the colon after it, and
// returns the index past the colon, or -1.
func compactKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = compactString(b, i); i < 0 || i >= len(b) || b[i] != ':' {
		return -1
	}
	return i + 1
}

// compactString returns the index past the string at b[i] (its opening
// quote), or -1 when it is not valid JSON or holds a byte Marshal
// escapes.
func compactString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		for i < len(b) && compactByte[b[i]] {
			i++
		}
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"':
			return i + 1
		case '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) || !hex(b[i+1]) || !hex(b[i+2]) || !hex(b[i+3]) || !hex(b[i+4]) {
					return -1
				}
				i += 4
			default:
				return -1
			}
		default: // a control byte, or one Marshal escapes
			return -1
		}
	}
	return -1
}

// compactByte marks the bytes a string holds that Marshal leaves as they
// are: printable ASCII but the quote, the backslash, <, > and &, and the
// bytes of multi-byte UTF-8 but 0xe2, which starts U+2028 and U+2029
// (and others, which are left to Marshal).
var compactByte = func() (t [256]bool) {
	for c := 0x20; c < 0x100; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' && c != 0x7f && c != 0xe2
	}
	t[0x7f] = true
	return t
}()

// literalAt returns the index past lit at b[i], or -1.
func literalAt(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// numberAt returns the index past the number at b[i], checked against
// JSON's grammar, or -1.
func numberAt(b []byte, i int) int {
	p := parser{data: b, pos: i, noSpace: true}
	if _, ok := p.number(); !ok {
		return -1
	}
	return p.pos
}
