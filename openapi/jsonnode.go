package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// jsonNode is a JSON value that keeps its object keys in document order.
// The gnostic protobuf form of /openapi/v2 lists paths, definitions,
// properties and extensions in the order the JSON document has them,
// and writes numbers as the document spells them, so the encoder walks
// the JSON bytes rather than a Go map.
type jsonNode struct {
	kind  jsonKind
	text  string      // a string's value, a number's digits, true, false or null
	keys  []string    // an object's keys, in order
	elems []*jsonNode // an object's values (beside keys) or an array's elements
}

type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonObject
	jsonArray
)

// parseJSONNode reads one JSON document into a jsonNode tree.
func parseJSONNode(data []byte) (*jsonNode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return readJSONNode(dec)
}

func readJSONNode(dec *json.Decoder) (*jsonNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return readJSONObject(dec)
		}
		if t == '[' {
			return readJSONArray(dec)
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case string:
		return &jsonNode{kind: jsonString, text: t}, nil
	case json.Number:
		return &jsonNode{kind: jsonNumber, text: t.String()}, nil
	case bool:
		if t {
			return &jsonNode{kind: jsonBool, text: "true"}, nil
		}
		return &jsonNode{kind: jsonBool, text: "false"}, nil
	}
	return &jsonNode{kind: jsonNull, text: "null"}, nil
}

func readJSONObject(dec *json.Decoder) (*jsonNode, error) {
	n := &jsonNode{kind: jsonObject}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		v, err := readJSONNode(dec)
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, key)
		n.elems = append(n.elems, v)
	}
	_, err := dec.Token() // }
	return n, err
}

func readJSONArray(dec *json.Decoder) (*jsonNode, error) {
	n := &jsonNode{kind: jsonArray}
	for dec.More() {
		v, err := readJSONNode(dec)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
	}
	_, err := dec.Token() // ]
	return n, err
}

// get returns the value of an object's key, or nil.
func (n *jsonNode) get(key string) *jsonNode {
	if n == nil || n.kind != jsonObject {
		return nil
	}
	for i, k := range n.keys {
		if k == key {
			return n.elems[i]
		}
	}
	return nil
}

// str returns the value of an object's key when it is a string.
func (n *jsonNode) str(key string) string {
	if v := n.get(key); v != nil && v.kind == jsonString {
		return v.text
	}
	return ""
}

// isEmptyCollection reports an object or array without members.
func (n *jsonNode) isEmptyCollection() bool {
	return (n.kind == jsonObject || n.kind == jsonArray) && len(n.elems) == 0
}
