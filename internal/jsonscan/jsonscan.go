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
	i++
	for {
		j := bytes.IndexAny(b[i:], `"\`)
		if j < 0 {
			return -1
		}
		i += j
		if b[i] == '"' {
			return i + 1
		}
		i += 2 // an escape: skip the backslash and the escaped byte
		if i > len(b) {
			return -1
		}
	}
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
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = SkipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
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

// ObjectField returns the span [start, end) of the value of key in the
// JSON object b (with no leading space), or ok false when b is not an
// object or has no such key. The first occurrence wins.
func ObjectField(b []byte, key string) (start, end int, ok bool) {
	if len(b) == 0 || b[0] != '{' {
		return 0, 0, false
	}
	i := SkipSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		k := SkipString(b, i)
		if k < 0 {
			return 0, 0, false
		}
		match := keyEquals(b[i+1:k-1], key)
		v := SkipSpace(b, k)
		if v >= len(b) || b[v] != ':' {
			return 0, 0, false
		}
		v = SkipSpace(b, v+1)
		e := SkipValue(b, v)
		if e < 0 {
			return 0, 0, false
		}
		if match {
			return v, e, true
		}
		i = SkipSpace(b, e)
		if i >= len(b) || b[i] != ',' {
			return 0, 0, false
		}
		i = SkipSpace(b, i+1)
	}
	return 0, 0, false
}

// keyEquals compares a raw (still escaped) JSON key with key.
func keyEquals(raw []byte, key string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == key
	}
	var s string
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	return json.Unmarshal(quoted, &s) == nil && s == key
}
