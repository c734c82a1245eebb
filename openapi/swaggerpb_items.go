package openapi

import "google.golang.org/protobuf/encoding/protowire"

// pathItemOperations are PathItem's operation fields by number.
var pathItemOperations = []struct {
	method string
	num    protowire.Number
}{{"get", 2}, {"put", 3}, {"post", 4}, {"delete", 5}, {"options", 6}, {"head", 7}, {"patch", 8}}

func pbPathItem(n *jsonNode) []byte {
	var b pbBuf
	b.str(1, n.str("$ref"))
	for _, op := range pathItemOperations {
		b.optional(op.num, n.get(op.method), pbOperation)
	}
	b.parameters(9, n.get("parameters"))
	b.extensions(10, n)
	return b
}

func pbOperation(n *jsonNode) []byte {
	var b pbBuf
	b.strs(1, n.get("tags"))
	b.str(2, n.str("summary"))
	b.str(3, n.str("description"))
	b.str(5, n.str("operationId"))
	b.strs(6, n.get("produces"))
	b.strs(7, n.get("consumes"))
	b.parameters(8, n.get("parameters"))
	b.optional(9, n.get("responses"), pbResponses)
	b.strs(10, n.get("schemes"))
	b.boolean(11, n.get("deprecated"))
	if sec := n.get("security"); sec != nil && sec.kind == jsonArray {
		for _, r := range sec.elems {
			b.message(12, pbSecurityRequirement(r))
		}
	}
	b.extensions(13, n)
	return b
}

// parameters writes a list of ParametersItem: a $ref becomes a
// JsonReference, "in: body" a BodyParameter, the others a
// NonBodyParameter of their location.
func (b *pbBuf) parameters(num protowire.Number, list *jsonNode) {
	if list == nil || list.kind != jsonArray {
		return
	}
	for _, p := range list.elems {
		var item pbBuf
		if ref := p.get("$ref"); ref != nil {
			item.message(2, pbJSONReference(p))
		} else {
			item.message(1, pbParameter(p))
		}
		b.message(num, item)
	}
}

func pbJSONReference(n *jsonNode) []byte {
	var b pbBuf
	b.str(1, n.str("$ref"))
	b.str(2, n.str("description"))
	return b
}

func pbParameter(n *jsonNode) []byte {
	var b pbBuf
	if n.str("in") == "body" {
		var p pbBuf
		p.str(1, n.str("description"))
		p.str(2, n.str("name"))
		p.str(3, n.str("in"))
		p.boolean(4, n.get("required"))
		p.optional(5, n.get("schema"), pbSchema)
		p.extensions(6, n)
		b.message(1, p)
		return b
	}
	var nb pbBuf
	switch n.str("in") {
	case "path":
		nb.message(4, pbPathParameter(n))
	case "header":
		nb.message(1, pbHeaderParameter(n))
	default:
		nb.message(3, pbQueryParameter(n))
	}
	b.message(2, nb)
	return b
}

// pbPathParameter is PathParameterSubSchema: required first.
func pbPathParameter(n *jsonNode) []byte {
	var b pbBuf
	b.boolean(1, n.get("required"))
	b.str(2, n.str("in"))
	b.str(3, n.str("description"))
	b.str(4, n.str("name"))
	b.primitive(5, n)
	b.extensions(22, n)
	return b
}

// pbQueryParameter is QueryParameterSubSchema, which has
// allowEmptyValue before the type.
func pbQueryParameter(n *jsonNode) []byte {
	var b pbBuf
	b.boolean(1, n.get("required"))
	b.str(2, n.str("in"))
	b.str(3, n.str("description"))
	b.str(4, n.str("name"))
	b.boolean(5, n.get("allowEmptyValue"))
	b.primitive(6, n)
	b.extensions(23, n)
	return b
}

// pbHeaderParameter is HeaderParameterSubSchema.
func pbHeaderParameter(n *jsonNode) []byte {
	var b pbBuf
	b.boolean(1, n.get("required"))
	b.str(2, n.str("in"))
	b.str(3, n.str("description"))
	b.str(4, n.str("name"))
	b.primitive(5, n)
	b.extensions(22, n)
	return b
}

// primitive writes the fields every non-body parameter and
// PrimitivesItems share, in their order, from number first on: type,
// format, items, collectionFormat, default, the bounds, enum, multipleOf.
func (b *pbBuf) primitive(first protowire.Number, n *jsonNode) {
	b.str(first, n.str("type"))
	b.str(first+1, n.str("format"))
	b.optional(first+2, n.get("items"), pbPrimitivesItems)
	b.str(first+3, n.str("collectionFormat"))
	b.any(first+4, n.get("default"))
	b.double(first+5, n.get("maximum"))
	b.boolean(first+6, n.get("exclusiveMaximum"))
	b.double(first+7, n.get("minimum"))
	b.boolean(first+8, n.get("exclusiveMinimum"))
	b.int64(first+9, n.get("maxLength"))
	b.int64(first+10, n.get("minLength"))
	b.str(first+11, n.str("pattern"))
	b.int64(first+12, n.get("maxItems"))
	b.int64(first+13, n.get("minItems"))
	b.boolean(first+14, n.get("uniqueItems"))
	b.anys(first+15, n.get("enum"))
	b.double(first+16, n.get("multipleOf"))
}

func pbPrimitivesItems(n *jsonNode) []byte {
	var b pbBuf
	b.primitive(1, n)
	b.extensions(18, n)
	return b
}

// pbResponses writes the responses by status code (or default), then
// extensions.
func pbResponses(n *jsonNode) []byte {
	var b pbBuf
	b.named(1, n, isResponseCode, func(v *jsonNode) []byte {
		var rv pbBuf
		if v.get("$ref") != nil {
			rv.message(2, pbJSONReference(v))
		} else {
			rv.message(1, pbResponse(v))
		}
		return rv
	})
	b.extensions(2, n)
	return b
}

func isResponseCode(k string) bool {
	if k == "default" {
		return true
	}
	return len(k) == 3 && k[0] >= '0' && k[0] <= '9' && k[1] >= '0' && k[1] <= '9' && k[2] >= '0' && k[2] <= '9'
}

func pbResponse(n *jsonNode) []byte {
	var b pbBuf
	b.str(1, n.str("description"))
	b.optional(2, n.get("schema"), func(s *jsonNode) []byte {
		var item pbBuf
		item.message(1, pbSchema(s))
		return item
	})
	b.extensions(5, n)
	return b
}

// pbSchema is Schema, a JSON schema in Swagger's subset.
func pbSchema(n *jsonNode) []byte {
	var b pbBuf
	b.str(1, n.str("$ref"))
	b.str(2, n.str("format"))
	b.str(3, n.str("title"))
	b.str(4, n.str("description"))
	b.any(5, n.get("default"))
	b.double(6, n.get("multipleOf"))
	b.double(7, n.get("maximum"))
	b.boolean(8, n.get("exclusiveMaximum"))
	b.double(9, n.get("minimum"))
	b.boolean(10, n.get("exclusiveMinimum"))
	b.int64(11, n.get("maxLength"))
	b.int64(12, n.get("minLength"))
	b.str(13, n.str("pattern"))
	b.int64(14, n.get("maxItems"))
	b.int64(15, n.get("minItems"))
	b.boolean(16, n.get("uniqueItems"))
	b.int64(17, n.get("maxProperties"))
	b.int64(18, n.get("minProperties"))
	b.strs(19, n.get("required"))
	b.anys(20, n.get("enum"))
	b.optional(21, n.get("additionalProperties"), pbAdditionalProperties)
	b.optional(22, n.get("type"), pbTypeItem)
	b.optional(23, n.get("items"), pbItemsItem)
	if all := n.get("allOf"); all != nil && all.kind == jsonArray {
		for _, s := range all.elems {
			b.message(24, pbSchema(s))
		}
	}
	b.optional(25, n.get("properties"), pbDefinitions)
	b.str(26, n.str("discriminator"))
	b.boolean(27, n.get("readOnly"))
	b.any(30, n.get("example"))
	b.extensions(31, n)
	return b
}

// pbAdditionalProperties is a schema or a boolean, which a oneof writes
// even when false.
func pbAdditionalProperties(n *jsonNode) []byte {
	var b pbBuf
	if n.kind == jsonBool {
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, protowire.EncodeBool(n.text == "true"))
		return b
	}
	b.message(1, pbSchema(n))
	return b
}

// pbTypeItem is a type name or a list of them.
func pbTypeItem(n *jsonNode) []byte {
	var b pbBuf
	if n.kind == jsonArray {
		b.strs(1, n)
		return b
	}
	b.message(1, []byte(n.text))
	return b
}

// pbItemsItem is one schema or a list of them.
func pbItemsItem(n *jsonNode) []byte {
	var b pbBuf
	if n.kind == jsonArray {
		for _, s := range n.elems {
			b.message(1, pbSchema(s))
		}
		return b
	}
	b.message(1, pbSchema(n))
	return b
}
