package apiserver

import (
	"bytes"
	"encoding/json"
	"strings"
)

// A few helpers find a field's value in encoded JSON without decoding the
// document: table cells and row metadata are read from stored bytes this
// way. They assume well-formed JSON (what the server itself encoded) and
// report malformed input as "not found", never panicking.

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
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

// skipString returns the index just past the string starting at b[i]
// (a quote), or -1.
func skipString(b []byte, i int) int {
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

// skipValue returns the index just past the value starting at b[i] (no
// leading space), or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
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

// objectField returns the span [start, end) of the value of key in the
// JSON object b (with no leading space), or ok false when b is not an
// object or has no such key. The first occurrence wins.
func objectField(b []byte, key string) (start, end int, ok bool) {
	if len(b) == 0 || b[0] != '{' {
		return 0, 0, false
	}
	i := skipSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		k := skipString(b, i)
		if k < 0 {
			return 0, 0, false
		}
		match := keyEquals(b[i+1:k-1], key)
		v := skipSpace(b, k)
		if v >= len(b) || b[v] != ':' {
			return 0, 0, false
		}
		v = skipSpace(b, v+1)
		e := skipValue(b, v)
		if e < 0 {
			return 0, 0, false
		}
		if match {
			return v, e, true
		}
		i = skipSpace(b, e)
		if i >= len(b) || b[i] != ',' {
			return 0, 0, false
		}
		i = skipSpace(b, i+1)
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

// lookupRaw follows a dotted path (.spec.replicas) through the JSON
// document doc and returns the raw value there, or nil when a step is
// missing or is not an object.
func lookupRaw(doc []byte, path string) []byte {
	cur := doc
	for _, p := range strings.Split(strings.Trim(path, "."), ".") {
		s, e, ok := objectField(cur, p)
		if !ok {
			return nil
		}
		cur = cur[s:e]
	}
	return cur
}

// eachString calls fn with every key of the JSON object b whose value is
// a string, both unquoted, and reports whether b was an object it could
// read to the end.
func eachString(b []byte, fn func(k, v string)) bool {
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	i := skipSpace(b, 1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) && b[i] == '"' {
		k := skipString(b, i)
		if k < 0 {
			return false
		}
		key := b[i:k]
		v := skipSpace(b, k)
		if v >= len(b) || b[v] != ':' {
			return false
		}
		v = skipSpace(b, v+1)
		e := skipValue(b, v)
		if e < 0 {
			return false
		}
		if b[v] == '"' {
			ks, ok1 := unquote(key)
			vs, ok2 := unquote(b[v:e])
			if !ok1 || !ok2 {
				return false
			}
			fn(ks, vs)
		}
		i = skipSpace(b, e)
		if i < len(b) && b[i] == '}' {
			return true
		}
		if i >= len(b) || b[i] != ',' {
			return false
		}
		i = skipSpace(b, i+1)
	}
	return false
}

// unquote returns the string a quoted JSON string holds.
func unquote(q []byte) (string, bool) {
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q[1 : len(q)-1]), true
	}
	var s string
	return s, json.Unmarshal(q, &s) == nil
}
