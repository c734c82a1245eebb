package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Lookup follows a dotted path (.spec.replicas) through the JSON
// document doc and returns the raw value there, or nil when a step is
// missing or is not an object.
func Lookup(doc []byte, path string) []byte {
	cur := doc
	for _, p := range strings.Split(strings.Trim(path, "."), ".") {
		s, e, ok := ObjectField(cur, p)
		if !ok {
			return nil
		}
		cur = cur[s:e]
	}
	return cur
}

// EachString calls fn with every key of the JSON object b whose value is
// a string, both unquoted, and reports whether b was an object it could
// read to the end.
func EachString(b []byte, fn func(k, v string)) bool {
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	i := SkipSpace(b, 1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) && b[i] == '"' {
		k := SkipString(b, i)
		if k < 0 {
			return false
		}
		key := b[i:k]
		v := SkipSpace(b, k)
		if v >= len(b) || b[v] != ':' {
			return false
		}
		v = SkipSpace(b, v+1)
		e := SkipValue(b, v)
		if e < 0 {
			return false
		}
		if b[v] == '"' {
			ks, ok1 := Unquote(key)
			vs, ok2 := Unquote(b[v:e])
			if !ok1 || !ok2 {
				return false
			}
			fn(ks, vs)
		}
		i = SkipSpace(b, e)
		if i < len(b) && b[i] == '}' {
			return true
		}
		if i >= len(b) || b[i] != ',' {
			return false
		}
		i = SkipSpace(b, i+1)
	}
	return false
}

// Unquote returns the string a quoted JSON string holds.
func Unquote(q []byte) (string, bool) {
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q[1 : len(q)-1]), true
	}
	var s string
	return s, json.Unmarshal(q, &s) == nil
}
