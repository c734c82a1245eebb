package apiserver

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/kapi-dev/kapi/internal/jsonscan"
)

// Besides package jsonscan's, a few helpers read encoded JSON without
// decoding the document: table cells and row metadata are read from
// stored bytes this way.

// lookupRaw follows a dotted path (.spec.replicas) through the JSON
// document doc and returns the raw value there, or nil when a step is
// missing or is not an object.
func lookupRaw(doc []byte, path string) []byte {
	cur := doc
	for _, p := range strings.Split(strings.Trim(path, "."), ".") {
		s, e, ok := jsonscan.ObjectField(cur, p)
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
	i := jsonscan.SkipSpace(b, 1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) && b[i] == '"' {
		k := jsonscan.SkipString(b, i)
		if k < 0 {
			return false
		}
		key := b[i:k]
		v := jsonscan.SkipSpace(b, k)
		if v >= len(b) || b[v] != ':' {
			return false
		}
		v = jsonscan.SkipSpace(b, v+1)
		e := jsonscan.SkipValue(b, v)
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
		i = jsonscan.SkipSpace(b, e)
		if i < len(b) && b[i] == '}' {
			return true
		}
		if i >= len(b) || b[i] != ',' {
			return false
		}
		i = jsonscan.SkipSpace(b, i+1)
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
