package typedjson

import "github.com/kapi-dev/kapi/internal/jsonscan"

// Skipping returns a decoder of d's types that passes over the members
// named skip of their top-level objects, leaving those fields zero: for
// a reader that has no use for a large member, such as an object's
// managedFields, and would otherwise decode it or cut it out of a copy
// of the document first. A skipped string, object or array is
// delimited, not checked (its strings and brackets are matched, as
// package jsonscan matches them, and nothing else), which is what
// cutting it out would check; other values are checked. The
// decoder is for documents from a writer trusted to write JSON, such as
// a kapi server. A repeated skipped member still makes the decoder give
// up, as any repeated member does. It is made to decode (Decode,
// DecodePrefix): a merge patch by it zeroes a skipped field or gives up.
// Its form and encoding are d's.
func (d *Decoder) Skipping(skip ...string) *Decoder {
	out := &Decoder{types: make([]compiled, len(d.types))}
	for i, c := range d.types {
		root := *c.root
		root.fields = make(map[string]field, len(c.root.fields))
		for name, f := range c.root.fields {
			for _, s := range skip {
				if name == s {
					f.node = &node{kind: kSkip, typ: f.node.typ}
				}
			}
			root.fields[name] = f
		}
		c.root = &root
		out.types[i] = c
	}
	return out
}

// DecodePrefix decodes the object at the start of data (after any space)
// into v as Decode does, and returns the index just past it; what follows
// it is not read. It decodes an object inside a larger document in place,
// without first finding where the object ends.
func (d *Decoder) DecodePrefix(data []byte, v any) (end int, ok bool) {
	return d.decodeAt(data, v, noSharing, false)
}

// skipUnchecked passes over the value at p.pos: a string, object or
// array delimited as jsonscan delimits it, any other value checked.
func (p *parser) skipUnchecked() bool {
	if c := p.next(); c != '"' && c != '{' && c != '[' {
		return p.skip()
	}
	end := jsonscan.SkipValue(p.data, p.pos)
	if end < 0 {
		return false
	}
	p.pos = end
	return true
}
