package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The YAML library's parser costs time proportional to a document's size
// times its flow nesting depth ([[[…]]] or {a: {a: …}}): a 25 KB document
// nested 5,000 deep took most of a second. Block nesting needs indentation
// that grows with depth, so its cost stays near the document's size.
// YAML bodies are therefore checked before parsing: one nested more than
// MaxYAMLFlowDepth levels in flow style is refused, and one that is plain
// JSON (the common case for clients that send YAML's media type) is
// decoded by the JSON decoder, whose cost is linear and whose nesting
// bound is Kubernetes' 10,000 levels.

// MaxYAMLFlowDepth is the deepest flow-style nesting a YAML body may have.
const MaxYAMLFlowDepth = 200

// ErrYAMLTooDeep is returned for a YAML body nested deeper than
// MaxYAMLFlowDepth levels in flow style.
var ErrYAMLTooDeep = fmt.Errorf("yaml: flow collections nested deeper than %d levels", MaxYAMLFlowDepth)

// The YAML parser and the conversion to JSON allocate a few hundred bytes
// for every value (node) of a document, whatever its size: a body of
// one-character values ("[1,1,1,…]", "- ~") cost over 150 bytes allocated
// per byte of body, where ordinary documents cost about 65. A YAML body may therefore hold YAMLFreeNodes values,
// plus one per YAMLBytesPerNode bytes of body beyond; ordinary documents
// (a key and a value per line, indented) are far below it. An alias counts
// as YAMLAliasNodes values, since it stands for a copy of what it names.
const (
	YAMLFreeNodes    = 16384
	YAMLBytesPerNode = 3
	YAMLAliasNodes   = 64
)

// ErrYAMLTooDense is returned for a YAML body with more values than
// YAMLFreeNodes and YAMLBytesPerNode allow for its size.
var ErrYAMLTooDense = fmt.Errorf("yaml: more than one value per %d bytes", YAMLBytesPerNode)

// CheckYAMLCost returns ErrYAMLTooDeep when data nests flow collections
// deeper than MaxYAMLFlowDepth, and ErrYAMLTooDense when it holds more
// values than its size allows. It reads data once, without allocating;
// quoted scalars and comments do not count. The values are estimated from
// the separators that start one (a line, "- ", ": ", ",", "[", "{", an
// alias), never fewer than the document has.
func CheckYAMLCost(data []byte) error {
	depth, nodes := 0, 1
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case '[', '{':
			nodes++
			if depth++; depth > MaxYAMLFlowDepth {
				return ErrYAMLTooDeep
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		case ',':
			nodes++
		case '\n':
			if startsKey(data[i+1:]) {
				nodes++
			}
		case '-', ':', '?':
			if i+1 == len(data) || data[i+1] == ' ' || data[i+1] == '\n' || data[i+1] == '\t' {
				nodes++
			}
		case '*':
			if i == 0 || isYAMLTokenStart(data[i-1]) {
				nodes += YAMLAliasNodes
			}
		case '"', '\'':
			if i == 0 || isYAMLTokenStart(data[i-1]) {
				i = skipQuoted(data, i)
			}
		case '#':
			if i == 0 || data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\n' {
				if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
					i += j - 1 // the newline still ends the line
				} else {
					i = len(data)
				}
			}
		}
	}
	if nodes > YAMLFreeNodes+len(data)/YAMLBytesPerNode {
		return ErrYAMLTooDense
	}
	return nil
}

// startsKey reports whether a line may start a value of its own: one
// that is not blank, a comment, or a sequence entry or explicit key (whose
// "- " or "? " counts instead).
func startsKey(line []byte) bool {
	line = bytes.TrimLeft(line, " \t")
	if len(line) == 0 {
		return false
	}
	switch line[0] {
	case '\n', '\r', '#':
		return false
	case '-', '?':
		return len(line) > 1 && line[1] != ' ' && line[1] != '\n' && line[1] != '\t'
	}
	return true
}

// isYAMLTokenStart reports whether a quote after c opens a quoted scalar
// (rather than sitting inside a plain one, as in "don't").
func isYAMLTokenStart(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '[', '{', ',', ':', '-', '?':
		return true
	}
	return false
}

// skipQuoted returns the index of the quote that closes the scalar opened
// at data[i], or the last index when it is not closed.
func skipQuoted(data []byte, i int) int {
	q := data[i]
	for j := i + 1; j < len(data); j++ {
		switch {
		case q == '"' && data[j] == '\\':
			j++
		case data[j] == q:
			if q == '\'' && j+1 < len(data) && data[j+1] == '\'' {
				j++ // '' is a quote inside a single-quoted scalar
				continue
			}
			return j
		}
	}
	return len(data) - 1
}

// IsJSON reports whether data, after white space, is a JSON object or
// array, which the JSON decoder reads as YAML would. Such a body is
// bounded by the JSON decoder's nesting limit (10,000 levels, as in
// Kubernetes), not by MaxYAMLFlowDepth.
func IsJSON(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && (data[0] == '{' || data[0] == '[') && json.Valid(data)
}

// MaxYAMLBlockDepth is the deepest object YAML encodes in block style, in
// which each level is indented two more spaces than its parent; a deeper
// one is written in JSON, which is YAML in flow style, so that the output
// stays proportional to the object's size.
const MaxYAMLBlockDepth = 32

// jsonDepth returns the deepest nesting of objects and arrays in the valid
// JSON j.
func jsonDepth(j []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(j); i++ {
		switch j[i] {
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		case '"':
			for i++; i < len(j) && j[i] != '"'; i++ {
				if j[i] == '\\' {
					i++
				}
			}
		}
	}
	return deepest
}
