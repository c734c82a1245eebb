package jsonfast

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/kapi-dev/kapi/internal/jsonstr"
)

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// parser reads one JSON value from data.
type parser struct {
	data []byte
	pos  int
	bad  bool // malformed: the caller falls back to encoding/json
	// omitOuter and omitInner name a member of a member of the top-level
	// object that is read but not built (see DecodeOmitting); "" for none.
	omitOuter, omitInner string
}

// parse decodes data; ok is false for anything encoding/json would
// reject or would decode differently.
func parse(data []byte) (v any, ok bool) {
	p := &parser{data: data}
	v = p.value(0)
	p.space()
	if p.bad || p.pos != len(p.data) {
		return nil, false
	}
	return v, true
}

func (p *parser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) any {
	p.space()
	if p.pos >= len(p.data) || depth > maxDepth {
		p.bad = true
		return nil
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth+1, "")
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, _ := p.str()
		return s
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	p.bad = true
	return nil
}

func (p *parser) literal(word string, v any) any {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		p.bad = true
		return nil
	}
	p.pos += len(word)
	return v
}

// object reads an object; its member named omit, when not "", is read
// but left out.
func (p *parser) object(depth int, omit string) any {
	p.pos++ // {
	m := make(map[string]any)
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return m
	}
	for !p.bad {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			p.bad = true
			break
		}
		k, _ := p.str()
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			p.bad = true
			break
		}
		p.pos++
		switch {
		case omit != "" && k == omit:
			p.skip(depth)
		case depth == 1 && p.omitOuter != "" && k == p.omitOuter:
			m[k] = p.outerValue(depth)
		default:
			m[k] = p.value(depth)
		}
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			return m
		}
		p.bad = true
	}
	return nil
}

func (p *parser) array(depth int) any {
	p.pos++ // [
	// Grown from empty, as encoding/json grows it: strategic merge
	// results can depend on a list's spare capacity, as in kube.
	a := make([]any, 0)
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return a
	}
	for !p.bad {
		a = append(a, p.value(depth))
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			return a
		}
		p.bad = true
	}
	return nil
}

// str reads a string; strings that need more than plain copying (escapes,
// non-ASCII) are unquoted by encoding/json for identical results.
func (p *parser) str() (string, bool) {
	raw, simple := p.scanStr()
	switch {
	case raw == nil:
		return "", false
	case simple:
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		p.bad = true
		return "", false
	}
	return s, true
}

// scanStr reads a string and returns it quoted, as it is in the input,
// and whether it is simple: neither escapes nor non-ASCII. It returns nil
// (and marks the input bad) for a string cut short or holding a control
// character.
func (p *parser) scanStr() (raw []byte, simple bool) {
	start := p.pos
	p.pos++ // "
	simple = true
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return p.data[start:p.pos], simple
		case c == '\\':
			simple = false
			p.pos += 2
			continue
		case c < 0x20:
			p.bad = true
			return nil, false
		case c >= utf8.RuneSelf:
			simple = false
		}
		p.pos++
	}
	p.bad = true
	return nil, false
}

// number reads a number: int64 when it is an integer that fits, float64
// otherwise.
func (p *parser) number() any {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	integer := true
	switch {
	case p.pos < len(p.data) && p.data[p.pos] == '0':
		p.pos++
	case p.pos < len(p.data) && p.data[p.pos] >= '1' && p.data[p.pos] <= '9':
		p.digits()
	default:
		p.bad = true
		return nil
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		integer = false
		if !p.digits() {
			p.bad = true
			return nil
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		integer = false
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if !p.digits() {
			p.bad = true
			return nil
		}
	}
	s := string(p.data[start:p.pos])
	if integer {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		p.bad = true // out of range: encoding/json words the error
		return nil
	}
	return f
}

func (p *parser) digits() bool {
	start := p.pos
	for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
		p.pos++
	}
	return p.pos > start
}

// appendValue writes v as encoding/json's Marshal would. ok is false for
// values it does not handle, which the caller then gives to Marshal.
func appendValue(b []byte, v any) ([]byte, bool) {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, t), true
	case string:
		return appendString(b, t), true
	case int64:
		return strconv.AppendInt(b, t, 10), true
	case float64:
		return appendFloat(b, t)
	case map[string]any:
		return appendObject(b, t)
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendValue(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	}
	return b, false
}

func appendObject(b []byte, m map[string]any) ([]byte, bool) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		var ok bool
		if b, ok = appendValue(b, m[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendFloat formats like encoding/json: %f between 1e-6 and 1e21, %e
// outside, with a two-digit exponent cleaned to one.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		n := len(b) - start
		if n >= 4 && b[len(b)-4] == 'e' && b[len(b)-3] == '-' && b[len(b)-2] == '0' {
			b[len(b)-2] = b[len(b)-1]
			b = b[:len(b)-1]
		}
	}
	return b, true
}

// appendString quotes s as encoding/json does, HTML-safe.
func appendString(b []byte, s string) []byte { return jsonstr.Append(b, s) }
