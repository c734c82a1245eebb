// Package jsonscan finds values in encoded JSON without decoding the
// document: the server reads table cells, labels and row metadata from
// stored bytes this way, and the controllers the metadata of watched
// objects. The functions assume well-formed JSON (what a kapi server
// encodes) and report malformed input as "not found" (-1 or false),
// never panicking.
package jsonscan

import (
	"bytes"
	"encoding/json"
)

// The scans run over every byte of the documents they cross (a watched
// object is crossed whole to find its end), so they test each byte
// against a table of the bytes that stop them rather than calling a
// search per string: most JSON strings are a few bytes long, shorter
// than what a search function needs to pay for itself.

// stopsString marks the bytes that end a run of a string's bytes: the
// closing quote and the escape.
var stopsString = [256]bool{'"': true, '\\': true}

// stopsContainer marks the bytes that a scan over an object or array
// acts on: a string's opening quote, and the brackets.
var stopsContainer = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// SkipSpace returns the index of the first non-space byte at or after i.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// SkipString returns the index just past the string starting at b[i]
// (a quote), or -1.
func SkipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		for i < len(b) && !stopsString[b[i]] {
			i++
		}
		if i >= len(b) {
			return -1
		}
		if b[i] == '"' {
			return i + 1
		}
		i++ // an escape: the loop's i++ skips the escaped byte
	}
	return -1
}

// SkipValue returns the index just past the value starting at b[i] (no
// leading space), or -1.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		return skipContainer(b, i)
	}
	// A number, true, false or null: up to the next delimiter.
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}

// skipContainer returns the index just past the object or array
// starting at b[i], or -1. It counts brackets, all of a kind, skipping
// strings in place.
func skipContainer(b []byte, i int) int {
	depth := 0
	for ; i < len(b); i++ {
		for i < len(b) && !stopsContainer[b[i]] {
			i++
		}
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case '"':
			for i++; i < len(b); i++ {
				for i < len(b) && !stopsString[b[i]] {
					i++
				}
				if i >= len(b) || b[i] == '"' {
					break
				}
				i++ // an escape and the byte it escapes
			}
			if i >= len(b) {
				return -1
			}
		case '{', '[':
			depth++
		default: // '}', ']'
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// Member is where one member of a JSON object is: Key is the index of
// its key's opening quote, [Start, End) its value. The zero Member is
// the one not found.
type Member struct {
	Key, Start, End int
}

// Found reports whether m was found.
func (m Member) Found() bool { return m.End > 0 }

// ObjectField returns the span [start, end) of the value of key in the
// JSON object b (with no leading space), or ok false when b is not an
// object or has no such key. The first occurrence wins.
func ObjectField(b []byte, key string) (start, end int, ok bool) {
	var m [1]Member
	ObjectFields(b, []string{key}, m[:])
	return m[0].Start, m[0].End, m[0].Found()
}

// ObjectFields finds several members of the JSON object b (with no
// leading space) in one pass: found[i] is set to the first member named
// keys[i], and left zero when there is none, when b is not an object,
// or when b is malformed before it. found must be as long as keys. The
// scan stops once every key is found, so that the members after the last
// key asked for are not read.
func ObjectFields(b []byte, keys []string, found []Member) {
	if len(b) == 0 || b[0] != '{' {
		return
	}
	missing := len(keys)
	i := SkipSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		k := SkipString(b, i)
		if k < 0 {
			return
		}
		v := SkipSpace(b, k)
		if v >= len(b) || b[v] != ':' {
			return
		}
		v = SkipSpace(b, v+1)
		e := SkipValue(b, v)
		if e < 0 {
			return
		}
		raw := b[i+1 : k-1]
		escaped := bytes.IndexByte(raw, '\\') >= 0
		for n, key := range keys {
			if !found[n].Found() && keyEquals(raw, escaped, key) {
				found[n] = Member{Key: i, Start: v, End: e}
				if missing--; missing == 0 {
					return
				}
			}
		}
		i = SkipSpace(b, e)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = SkipSpace(b, i+1)
	}
}

// keyEquals compares a raw (still escaped) JSON key with key; escaped
// tells whether raw holds a backslash.
func keyEquals(raw []byte, escaped bool, key string) bool {
	if !escaped {
		return string(raw) == key
	}
	var s string
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	return json.Unmarshal(quoted, &s) == nil && s == key
}
