package jsonfast

import (
	"encoding/json"
)

// outerValue reads the value of the top-level member DecodeOmitting looks
// into: an object leaves out its member omitInner.
func (p *parser) outerValue(depth int) any {
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '{' && depth <= maxDepth {
		return p.object(depth+1, p.omitInner)
	}
	return p.value(depth)
}

// skip reads one value as value does, accepting and refusing exactly what
// it does, and builds nothing.
func (p *parser) skip(depth int) {
	p.space()
	if p.pos >= len(p.data) || depth > maxDepth {
		p.bad = true
		return
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		p.skipObject(depth + 1)
	case c == '[':
		p.skipArray(depth + 1)
	case c == '"':
		p.skipStr()
	case c == 't':
		p.literal("true", true)
	case c == 'f':
		p.literal("false", false)
	case c == 'n':
		p.literal("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		p.number()
	default:
		p.bad = true
	}
}

func (p *parser) skipObject(depth int) {
	p.pos++ // {
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return
	}
	for !p.bad {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			p.bad = true
			return
		}
		p.skipStr()
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			p.bad = true
			return
		}
		p.pos++
		p.skip(depth)
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			return
		}
		p.bad = true
	}
}

func (p *parser) skipArray(depth int) {
	p.pos++ // [
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return
	}
	for !p.bad {
		p.skip(depth)
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			return
		}
		p.bad = true
	}
}

// skipStr reads a string as str does, without making it.
func (p *parser) skipStr() {
	raw, simple := p.scanStr()
	if raw != nil && !simple {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			p.bad = true
		}
	}
}
