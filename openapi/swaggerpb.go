package openapi

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// SwaggerProtobuf encodes a Swagger 2.0 JSON document built by [Swagger]
// as the openapi_v2.Document message of github.com/google/gnostic-models,
// the form kube-apiserver serves at /openapi/v2 to clients that ask for
// application/com.github.proto-openapi.spec.v2.v1.0+protobuf (client-go's
// OpenAPISchema, kubectl explain --output plaintext-openapiv2).
//
// kube-apiserver builds it by parsing its JSON document with gnostic and
// marshalling the message; this writes the same bytes for the same JSON
// without depending on gnostic: fields in field-number order, named
// collections (paths, definitions, properties, responses, extensions) in
// the JSON's order, extensions, enum values and defaults as the YAML text
// of an Any message.
func SwaggerProtobuf(doc []byte) ([]byte, error) {
	root, err := parseJSONNode(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi: swagger document: %w", err)
	}
	if root.kind != jsonObject {
		return nil, fmt.Errorf("openapi: swagger document is not an object")
	}
	return pbDocument(root), nil
}

// pbBuf appends protobuf fields. Scalars at their zero value are left
// out, as proto3 does; messages are written whenever the JSON has them,
// even empty.
type pbBuf []byte

func (b *pbBuf) message(num protowire.Number, m []byte) {
	*b = protowire.AppendTag(*b, num, protowire.BytesType)
	*b = protowire.AppendBytes(*b, m)
}

func (b *pbBuf) str(num protowire.Number, s string) {
	if s != "" {
		b.message(num, []byte(s))
	}
}

func (b *pbBuf) strs(num protowire.Number, n *jsonNode) {
	if n == nil || n.kind != jsonArray {
		return
	}
	for _, e := range n.elems {
		b.message(num, []byte(e.text))
	}
}

func (b *pbBuf) boolean(num protowire.Number, n *jsonNode) {
	if n != nil && n.kind == jsonBool && n.text == "true" {
		*b = protowire.AppendTag(*b, num, protowire.VarintType)
		*b = protowire.AppendVarint(*b, 1)
	}
}

func (b *pbBuf) double(num protowire.Number, n *jsonNode) {
	if n == nil || n.kind != jsonNumber {
		return
	}
	if f, err := strconv.ParseFloat(n.text, 64); err == nil && f != 0 {
		*b = protowire.AppendTag(*b, num, protowire.Fixed64Type)
		*b = protowire.AppendFixed64(*b, math.Float64bits(f))
	}
}

func (b *pbBuf) int64(num protowire.Number, n *jsonNode) {
	if n == nil || n.kind != jsonNumber {
		return
	}
	if i, err := strconv.ParseInt(n.text, 10, 64); err == nil && i != 0 {
		*b = protowire.AppendTag(*b, num, protowire.VarintType)
		*b = protowire.AppendVarint(*b, uint64(i))
	}
}

// any writes an Any message holding n's YAML.
func (b *pbBuf) any(num protowire.Number, n *jsonNode) {
	if n == nil {
		return
	}
	var m pbBuf
	m.str(2, anyYAML(n))
	b.message(num, m)
}

// anys writes each element of an array as an Any (enum).
func (b *pbBuf) anys(num protowire.Number, n *jsonNode) {
	if n == nil || n.kind != jsonArray {
		return
	}
	for _, e := range n.elems {
		b.any(num, e)
	}
}

// extensions writes every x- key of an object as a NamedAny.
func (b *pbBuf) extensions(num protowire.Number, n *jsonNode) {
	for i, k := range n.keys {
		if strings.HasPrefix(k, "x-") {
			var m pbBuf
			m.str(1, k)
			m.any(2, n.elems[i])
			b.message(num, m)
		}
	}
}

// named writes each key of an object accepted by keep as a Named*
// message {name, value}, the value encoded by enc.
func (b *pbBuf) named(num protowire.Number, n *jsonNode, keep func(string) bool, enc func(*jsonNode) []byte) {
	if n == nil || n.kind != jsonObject {
		return
	}
	for i, k := range n.keys {
		if keep != nil && !keep(k) {
			continue
		}
		var m pbBuf
		m.str(1, k)
		m.message(2, enc(n.elems[i]))
		b.message(num, m)
	}
}

// optional writes a message for a key the JSON has.
func (b *pbBuf) optional(num protowire.Number, n *jsonNode, enc func(*jsonNode) []byte) {
	if n != nil {
		b.message(num, enc(n))
	}
}

func pbDocument(n *jsonNode) []byte {
	var b pbBuf
	b.str(1, n.str("swagger"))
	b.optional(2, n.get("info"), pbInfo)
	b.str(3, n.str("host"))
	b.str(4, n.str("basePath"))
	b.strs(5, n.get("schemes"))
	b.strs(6, n.get("consumes"))
	b.strs(7, n.get("produces"))
	b.optional(8, n.get("paths"), pbPaths)
	b.optional(9, n.get("definitions"), pbDefinitions)
	if sec := n.get("security"); sec != nil && sec.kind == jsonArray {
		for _, r := range sec.elems {
			b.message(12, pbSecurityRequirement(r))
		}
	}
	b.optional(13, n.get("securityDefinitions"), pbSecurityDefinitions)
	b.extensions(16, n)
	return b
}

func pbInfo(n *jsonNode) []byte {
	var b pbBuf
	b.str(1, n.str("title"))
	b.str(2, n.str("version"))
	b.str(3, n.str("description"))
	b.str(4, n.str("termsOfService"))
	b.extensions(7, n)
	return b
}

func pbPaths(n *jsonNode) []byte {
	var b pbBuf
	b.extensions(1, n)
	b.named(2, n, func(k string) bool { return strings.HasPrefix(k, "/") }, pbPathItem)
	return b
}

func pbDefinitions(n *jsonNode) []byte {
	var b pbBuf
	b.named(1, n, nil, pbSchema)
	return b
}

func pbSecurityRequirement(n *jsonNode) []byte {
	var b pbBuf
	b.named(1, n, nil, func(v *jsonNode) []byte {
		var a pbBuf
		a.strs(1, v)
		return a
	})
	return b
}

// pbSecurityDefinitions writes the schemes kube-apiserver declares, API
// keys (the bearer token) and basic authentication.
func pbSecurityDefinitions(n *jsonNode) []byte {
	var b pbBuf
	b.named(1, n, nil, func(v *jsonNode) []byte {
		var s, item pbBuf
		s.str(1, v.str("type"))
		switch v.str("type") {
		case "basic":
			s.str(2, v.str("description"))
			s.extensions(3, v)
			item.message(1, s)
		default:
			s.str(2, v.str("name"))
			s.str(3, v.str("in"))
			s.str(4, v.str("description"))
			s.extensions(5, v)
			item.message(2, s)
		}
		return item
	})
	return b
}
