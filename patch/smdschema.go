package patch

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch/internal/fastfields"
	"github.com/kapi-dev/kapi/schema"
	smd "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// The two untyped types every converted schema carries, named as
// kube-openapi's schemaconv names them: an atomic value of any type, and a
// value of any type whose maps are granular (lists stay atomic).
const (
	untypedName = fastfields.UntypedAtomic
	deducedName = "__untyped_deduced_"
)

// SMDSchema converts the schema of a kind into a structured-merge-diff
// schema and returns the parseable type of the kind's objects, as
// kube-apiserver converts a CustomResourceDefinition's structural schema
// (k8s.io/kube-openapi/pkg/schemaconv):
//
//   - objects are structs with their properties; additionalProperties give
//     the type of other keys; objects that preserve unknown fields (and
//     everything below them) or declare no properties accept any other key
//     as a deduced value; x-kubernetes-map-type atomic makes a map or
//     struct atomic, granular separable;
//   - x-kubernetes-list-type atomic, set and map (with
//     x-kubernetes-list-map-keys) give atomic, set and associative lists;
//     without a list type, x-kubernetes-patch-strategy merge gives a set, or
//     a map keyed by x-kubernetes-patch-merge-key; any other list is atomic;
//   - integers and numbers are numeric, strings (byte format too) strings,
//     other string formats (date-time, ...) and untyped nodes
//     (int-or-string, preserve-unknown-fields) untyped scalars;
//   - the top-level metadata is always ObjectMeta's schema, whatever the
//     kind declares, and apiVersion and kind are strings.
//
// A nil schema gives the deduced type kube uses for kinds without a
// schema: every map granular, every list atomic.
func SMDSchema(s *schema.Schema) (typed.ParseableType, error) {
	if s == nil {
		return typed.DeducedParseableType, nil
	}
	om, err := schema.FromType(reflect.TypeFor[meta.ObjectMeta]())
	if err != nil {
		return typed.ParseableType{}, err
	}
	root := *s
	root.Properties = make(map[string]*schema.Schema, len(s.Properties)+3)
	for k, v := range s.Properties {
		root.Properties[k] = v
	}
	root.Properties["metadata"] = om
	for _, k := range []string{"apiVersion", "kind"} {
		if _, ok := root.Properties[k]; !ok {
			root.Properties[k] = &schema.Schema{Type: "string"}
		}
	}
	if root.Type == "" {
		root.Type = "object"
	}
	c := &smdConverter{}
	atom := c.atom(&root, false)
	if len(c.errs) > 0 {
		return typed.ParseableType{}, fmt.Errorf("patch: converting the schema for server-side apply: %v", c.errs)
	}
	out := &smd.Schema{Types: []smd.TypeDef{untypedDef(), deducedDef()}}
	return typed.ParseableType{Schema: out, TypeRef: smd.TypeRef{Inlined: atom}}, nil
}

func named(n string) smd.TypeRef { return smd.TypeRef{NamedType: &n} }

func scalarPtr(s smd.Scalar) *smd.Scalar { return &s }

func untypedDef() smd.TypeDef {
	return smd.TypeDef{Name: untypedName, Atom: smd.Atom{
		Scalar: scalarPtr(smd.Untyped),
		List:   &smd.List{ElementType: named(untypedName), ElementRelationship: smd.Atomic},
		Map:    &smd.Map{ElementType: named(untypedName), ElementRelationship: smd.Atomic},
	}}
}

func deducedDef() smd.TypeDef {
	return smd.TypeDef{Name: deducedName, Atom: smd.Atom{
		Scalar: scalarPtr(smd.Untyped),
		List:   &smd.List{ElementType: named(untypedName), ElementRelationship: smd.Atomic},
		Map:    &smd.Map{ElementType: named(deducedName), ElementRelationship: smd.Separable},
	}}
}

// smdConverter converts schema nodes to inlined atoms, collecting errors.
type smdConverter struct {
	errs []string
}

// atom converts one node; preserve is set below a node that preserves
// unknown fields.
func (c *smdConverter) atom(s *schema.Schema, preserve bool) smd.Atom {
	preserve = preserve || s.XPreserveUnknownFields
	switch s.Type {
	case "":
		return smd.Atom{Scalar: scalarPtr(smd.Untyped), List: c.list(s, preserve), Map: c.object(s, preserve)}
	case "object":
		return smd.Atom{Map: c.object(s, preserve)}
	case "array":
		return smd.Atom{List: c.list(s, preserve)}
	case "integer", "number":
		return smd.Atom{Scalar: scalarPtr(smd.Numeric)}
	case "boolean":
		return smd.Atom{Scalar: scalarPtr(smd.Boolean)}
	case "string":
		if s.Format == "" || s.Format == "byte" {
			return smd.Atom{Scalar: scalarPtr(smd.String)}
		}
		return smd.Atom{Scalar: scalarPtr(smd.Untyped)}
	}
	c.errs = append(c.errs, fmt.Sprintf("unrecognized type: '%v'", s.Type))
	return smd.Atom{Scalar: scalarPtr(smd.Untyped)}
}

func (c *smdConverter) ref(s *schema.Schema, preserve bool) smd.TypeRef {
	return smd.TypeRef{Inlined: c.atom(s, preserve), Nullable: s.Nullable}
}

func (c *smdConverter) object(s *schema.Schema, preserve bool) *smd.Map {
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	m := &smd.Map{Fields: make([]smd.StructField, 0, len(names))}
	for _, k := range names {
		p := s.Properties[k]
		m.Fields = append(m.Fields, smd.StructField{Name: k, Type: c.ref(p, preserve), Default: p.Default})
	}
	switch {
	case s.AdditionalProperties != nil:
		m.ElementType = c.ref(s.AdditionalProperties, preserve)
	case preserve || len(s.Properties) == 0:
		m.ElementType = named(deducedName)
	}
	switch s.XMapType {
	case "atomic":
		m.ElementRelationship = smd.Atomic
	case "granular":
		m.ElementRelationship = smd.Separable
	}
	return m
}

func (c *smdConverter) list(s *schema.Schema, preserve bool) *smd.List {
	l := &smd.List{ElementRelationship: smd.Atomic, ElementType: named(untypedName)}
	if s.Items != nil {
		l.ElementType = c.ref(s.Items, preserve)
	}
	switch s.XListType {
	case "atomic":
	case "set":
		l.ElementRelationship = smd.Associative
	case "map":
		l.ElementRelationship, l.Keys = smd.Associative, slices.Clone(s.XListMapKeys)
	case "":
		switch s.XPatchStrategy {
		case "merge", "merge,retainKeys":
			l.ElementRelationship = smd.Associative
			if s.XPatchMergeKey != "" {
				l.Keys = []string{s.XPatchMergeKey}
			}
		}
	default:
		c.errs = append(c.errs, fmt.Sprintf("unknown list type %v", s.XListType))
	}
	return l
}
