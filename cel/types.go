package cel

import (
	"sort"

	"github.com/google/cel-go/common/types"

	"github.com/kapi-dev/kapi/schema"
)

// Limits, as kube-apiserver sets them for CRD validation rules.
const (
	// PerCallLimit bounds the cost of one evaluation of one expression.
	PerCallLimit = 1_000_000
	// RuntimeBudget bounds the cost of all the rules of one request.
	RuntimeBudget = 10_000_000
	// StaticCostLimit bounds the estimated cost of one expression, times
	// the number of times it may run in one object.
	StaticCostLimit = 10_000_000
	// StaticTotalCostLimit bounds the estimated cost of all the rules of
	// a schema.
	StaticTotalCostLimit = 100_000_000
	// MaxRequestBytes is the largest object the estimates assume.
	MaxRequestBytes = 3 << 20
	// maxMessageBytes bounds an evaluated messageExpression.
	maxMessageBytes = 5 * 1024
	// checkFrequency is how many comprehension steps pass between checks
	// of the context.
	checkFrequency = 100
)

// kind classifies how values of a node become CEL values.
type kind int

const (
	kindDyn kind = iota
	kindObject
	kindMap
	kindList
	kindString
	kindBytes
	kindDuration
	kindTimestamp
	kindDate
	kindInt
	kindDouble
	kindBool
	kindIntOrString
)

// node is the CEL view of one schema node: its type and size bounds.
type node struct {
	kind kind
	typ  *types.Type
	s    *schema.Schema // nil for dynamic values and synthetic metadata

	// objects: fields by CEL (escaped) name, and the property each
	// escaped name stands for.
	fields map[string]*node
	names  map[string]string
	order  []string // escaped names, sorted

	elem *node // list items, map values

	// maxElements is the largest size() of a value: characters of a
	// string, items of a list, entries of a map.
	maxElements uint64
	// bounded says maxElements comes from the schema, not from the
	// request size.
	bounded bool
	// minSize is the smallest JSON encoding of a value.
	minSize uint64
	// listType and keys are the list's x-kubernetes-list-type and keys.
	listType string
	keys     []string
}

var (
	dynNode = &node{kind: kindDyn, typ: types.DynType, maxElements: MaxRequestBytes, minSize: 1}
	// dynMap and dynList hold values of preserved unknown fields.
	dynMap  = &node{kind: kindMap, typ: types.NewMapType(types.StringType, types.DynType), elem: dynNode, maxElements: MaxRequestBytes / 4, minSize: 2}
	dynList = &node{kind: kindList, typ: types.NewListType(types.DynType), elem: dynNode, maxElements: MaxRequestBytes / 2, minSize: 2, listType: "atomic"}
)

// typeSet collects the object types of a schema tree for the provider.
type typeSet map[string]*node

// build returns the node of s. name is the CEL type name objects get;
// resource says s is the root of a resource (the kind's, or an embedded
// one), whose metadata shows only name and generateName.
func (ts typeSet) build(s *schema.Schema, name string, resource bool) *node {
	if s == nil {
		return dynNode
	}
	switch {
	case s.XIntOrString:
		return &node{kind: kindIntOrString, typ: types.DynType, s: s, maxElements: stringMax(s), minSize: 1}
	case s.Type == "array":
		elem := ts.build(s.Items, name+".@items", s.Items != nil && s.Items.XEmbeddedResource)
		n := &node{kind: kindList, typ: types.NewListType(elem.typ), s: s, elem: elem, minSize: 2,
			listType: s.XListType, keys: s.XListMapKeys}
		if n.listType == "" {
			n.listType = "atomic"
		}
		n.maxElements, n.bounded = bound(s.MaxItems, (MaxRequestBytes-2)/(elem.minSize+1))
		return n
	case s.Type == "object" && s.AdditionalProperties != nil && len(s.Properties) == 0:
		elem := ts.build(s.AdditionalProperties, name+".@values", s.AdditionalProperties.XEmbeddedResource)
		n := &node{kind: kindMap, typ: types.NewMapType(types.StringType, elem.typ), s: s, elem: elem, minSize: 2}
		n.maxElements, n.bounded = bound(s.MaxProperties, (MaxRequestBytes-2)/(elem.minSize+6))
		return n
	case s.Type == "object" && len(s.Properties) == 0 && !resource:
		if s.XPreserveUnknownFields {
			return &node{kind: kindDyn, typ: types.DynType, s: s, maxElements: MaxRequestBytes, minSize: 2}
		}
		fallthrough
	case s.Type == "object":
		return ts.object(s, name, resource)
	case s.Type == "" && s.XPreserveUnknownFields:
		return &node{kind: kindDyn, typ: types.DynType, s: s, maxElements: MaxRequestBytes, minSize: 1}
	}
	return scalar(s)
}

// object builds the node of an object with properties.
func (ts typeSet) object(s *schema.Schema, name string, resource bool) *node {
	n := &node{kind: kindObject, typ: types.NewObjectType(name), s: s, minSize: 2,
		fields: map[string]*node{}, names: map[string]string{}}
	for prop, ps := range s.Properties {
		esc, ok := escape(prop)
		if !ok {
			continue // not reachable from CEL, as in kube-apiserver
		}
		var f *node
		if resource && prop == "metadata" {
			f = ts.metadata(name + ".metadata")
		} else {
			f = ts.build(ps, name+"."+prop, ps.XEmbeddedResource)
		}
		n.fields[esc], n.names[esc] = f, prop
		n.order = append(n.order, esc)
	}
	if resource {
		for _, prop := range []string{"apiVersion", "kind"} {
			if _, ok := n.fields[prop]; !ok {
				n.fields[prop], n.names[prop] = scalar(&schema.Schema{Type: "string"}), prop
				n.order = append(n.order, prop)
			}
		}
		if _, ok := n.fields["metadata"]; !ok {
			n.fields["metadata"], n.names["metadata"] = ts.metadata(name+".metadata"), "metadata"
			n.order = append(n.order, "metadata")
		}
	}
	sort.Strings(n.order)
	n.maxElements = uint64(len(n.order))
	ts[name] = n
	return n
}

// metadata is what rules see of an object's metadata: its name and
// generateName, as kube-apiserver shows it to CRD rules.
func (ts typeSet) metadata(name string) *node {
	str := &schema.Schema{Type: "string"}
	n := &node{kind: kindObject, typ: types.NewObjectType(name), minSize: 2,
		fields: map[string]*node{"name": scalar(str), "generateName": scalar(str)},
		names:  map[string]string{"name": "name", "generateName": "generateName"},
		order:  []string{"generateName", "name"}, maxElements: 2}
	ts[name] = n
	return n
}

// scalar builds the node of a string, number or boolean.
func scalar(s *schema.Schema) *node {
	switch s.Type {
	case "integer":
		return &node{kind: kindInt, typ: types.IntType, s: s, minSize: 1}
	case "number":
		return &node{kind: kindDouble, typ: types.DoubleType, s: s, minSize: 1}
	case "boolean":
		return &node{kind: kindBool, typ: types.BoolType, s: s, minSize: 4}
	case "string":
		n := &node{kind: kindString, typ: types.StringType, s: s, minSize: 2}
		switch s.Format {
		case "byte":
			n.kind, n.typ = kindBytes, types.BytesType
		case "duration":
			n.kind, n.typ, n.minSize = kindDuration, types.DurationType, 3
		case "date":
			n.kind, n.typ, n.minSize = kindDate, types.TimestampType, 12
		case "date-time":
			n.kind, n.typ, n.minSize = kindTimestamp, types.TimestampType, 21
		}
		n.maxElements = stringMax(s)
		n.bounded = s.MaxLength != nil
		return n
	}
	return &node{kind: kindDyn, typ: types.DynType, s: s, maxElements: MaxRequestBytes, minSize: 1}
}

// stringMax is the longest a string of s can be.
func stringMax(s *schema.Schema) uint64 {
	if s.MaxLength != nil {
		return uint64(*s.MaxLength)
	}
	switch s.Format {
	case "duration", "date-time":
		return 32
	case "date":
		return 12
	}
	return MaxRequestBytes - 2
}

func bound(max *int64, estimate uint64) (uint64, bool) {
	if max != nil {
		return uint64(*max), true
	}
	return estimate, false
}
