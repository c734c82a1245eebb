package schema

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

var (
	providerType      = reflect.TypeFor[Provider]()
	ruleProviderType  = reflect.TypeFor[RuleProvider]()
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	timeType          = reflect.TypeFor[time.Time]()
)

// FromType builds the schema of Go type t by reflection, following the
// rules in the package documentation. Pointer types describe their element
// type. The result is a fresh tree owned by the caller.
//
// FromType is meant to run once per kind, at registration; it is not fast.
func FromType(t reflect.Type) (*Schema, error) {
	return FromTypeOptions(t, TypeOptions{})
}

// TypeOptions adjusts what [FromTypeOptions] makes of Go types.
type TypeOptions struct {
	// Types gives the schema of Go types whose JSON form reflection
	// cannot see and that cannot implement [Provider]: types of other
	// libraries with their own JSON marshalling, such as
	// apimachinery's metav1.Time (a date-time string) or
	// intstr.IntOrString. Every use gets its own copy; the tags of the
	// field using the type apply on top.
	Types map[reflect.Type]*Schema
}

// FromTypeOptions is [FromType] with the schemas of some types given.
func FromTypeOptions(t reflect.Type, o TypeOptions) (*Schema, error) {
	if t == nil {
		return nil, errors.New("schema: nil type")
	}
	b := &builder{visiting: make(map[reflect.Type]bool), types: o.Types}
	return b.build(t, typeName(t))
}

// builder carries the state of one FromType call: the struct types being
// built, to refuse recursion, and the schemas of types given by the
// caller.
type builder struct {
	visiting map[reflect.Type]bool
	types    map[reflect.Type]*Schema
}

// build returns the schema of t, with the rules of a type that is a
// [RuleProvider]; where names the Go field (or type) for errors.
func (b *builder) build(t reflect.Type, where string) (*Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s, err := b.buildType(t, where)
	if err != nil || t.Kind() == reflect.Interface || !reflect.PointerTo(t).Implements(ruleProviderType) {
		return s, err
	}
	for _, r := range reflect.New(t).Interface().(RuleProvider).ValidationRules() {
		r.OptionalOldSelf = clonePtr(r.OptionalOldSelf)
		s.XValidations = append(s.XValidations, r)
	}
	if err := checkNode(s, where); err != nil {
		return nil, err
	}
	return s, nil
}

// buildType returns the schema of the non-pointer type t.
func (b *builder) buildType(t reflect.Type, where string) (*Schema, error) {
	if s, ok, err := b.special(t, where); ok || err != nil {
		return s, err
	}
	if typ, format, ok := scalarType(t.Kind()); ok {
		return &Schema{Type: typ, Format: format}, nil
	}
	switch t.Kind() {
	case reflect.Interface:
		return &Schema{XPreserveUnknownFields: true}, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !reflect.PointerTo(t.Elem()).Implements(jsonMarshalerType) {
			return &Schema{Type: "string", Format: "byte"}, nil
		}
		return b.array(t, where)
	case reflect.Array:
		s, err := b.array(t, where)
		if err == nil {
			n := int64(t.Len())
			s.MinItems, s.MaxItems = &n, &n
		}
		return s, err
	case reflect.Map:
		return b.mapSchema(t, where)
	case reflect.Struct:
		return b.structSchema(t, where)
	}
	return nil, fmt.Errorf("schema: %s: Go type %s has no JSON form", where, t)
}

// special handles the types whose JSON form is not what reflection over
// their fields would say: self-describing types, the meta wire types with
// custom encodings, and types with their own JSON or text marshalling.
func (b *builder) special(t reflect.Type, where string) (*Schema, bool, error) {
	if s, ok := b.types[t]; ok {
		if s == nil {
			return nil, true, fmt.Errorf("schema: %s: nil schema given for %s", where, t)
		}
		return s.DeepCopy(), true, nil
	}
	if t.Kind() == reflect.Interface {
		return nil, false, nil
	}
	pt := reflect.PointerTo(t)
	if pt.Implements(providerType) {
		s := reflect.New(t).Interface().(Provider).OpenAPISchema()
		if s == nil {
			return nil, true, fmt.Errorf("schema: %s: %s.OpenAPISchema returned nil", where, t)
		}
		return s.DeepCopy(), true, nil
	}
	if s := metaSpecial(t); s != nil {
		return s, true, nil
	}
	switch {
	case t == timeType:
		return &Schema{Type: "string", Format: "date-time"}, true, nil
	case t == rawMessageType:
		return &Schema{XPreserveUnknownFields: true}, true, nil
	case pt.Implements(jsonMarshalerType):
		return &Schema{XPreserveUnknownFields: true}, true, nil
	case pt.Implements(textMarshalerType):
		return &Schema{Type: "string"}, true, nil
	}
	return nil, false, nil
}

// scalarType maps a Go kind to an OpenAPI type and format.
func scalarType(k reflect.Kind) (typ, format string, ok bool) {
	switch k {
	case reflect.Bool:
		return "boolean", "", true
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16:
		return "integer", "int32", true
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer", "int64", true
	case reflect.Float32:
		return "number", "float", true
	case reflect.Float64:
		return "number", "double", true
	case reflect.String:
		return "string", "", true
	}
	return "", "", false
}

func (b *builder) array(t reflect.Type, where string) (*Schema, error) {
	items, err := b.build(t.Elem(), where+"[]")
	if err != nil {
		return nil, err
	}
	return &Schema{Type: "array", Items: items}, nil
}

func (b *builder) mapSchema(t reflect.Type, where string) (*Schema, error) {
	k := t.Key()
	switch {
	case k.Kind() == reflect.String, reflect.PointerTo(k).Implements(textMarshalerType):
	case k.Kind() >= reflect.Int && k.Kind() <= reflect.Uintptr:
	default:
		return nil, fmt.Errorf("schema: %s: map key type %s cannot be a JSON object key", where, k)
	}
	values, err := b.build(t.Elem(), where+"[]")
	if err != nil {
		return nil, err
	}
	return &Schema{Type: "object", AdditionalProperties: values}, nil
}

// structSchema builds an object schema from the JSON fields of struct t.
func (b *builder) structSchema(t reflect.Type, where string) (*Schema, error) {
	if b.visiting[t] {
		return nil, fmt.Errorf("schema: %s: recursive type %s is not supported", where, t)
	}
	b.visiting[t] = true
	defer delete(b.visiting, t)

	var fields []jsonField
	if err := b.collect(t, where, 0, &fields); err != nil {
		return nil, err
	}
	fields, err := resolveFields(fields)
	if err != nil {
		return nil, err
	}
	s := &Schema{Type: "object", Properties: make(map[string]*Schema, len(fields))}
	for _, f := range fields {
		fs, err := b.fieldSchema(f)
		if err != nil {
			return nil, err
		}
		s.Properties[f.name] = fs
		s.PropertyOrder = append(s.PropertyOrder, f.name)
		if f.required() {
			s.Required = append(s.Required, f.name)
		}
	}
	applyTypeDoc(t, s)
	if err := checkNode(s, where); err != nil {
		return nil, err
	}
	return s, nil
}

// fieldSchema builds the schema of one struct field and applies its tags.
func (b *builder) fieldSchema(f jsonField) (*Schema, error) {
	s, err := b.build(f.field.Type, f.where)
	if err != nil {
		return nil, err
	}
	if _, _, scalar := scalarType(deref(f.field.Type).Kind()); f.asString && scalar {
		s = &Schema{Type: "string"} // ",string" quotes numbers and booleans
	}
	if f.doc != "" {
		s.Description = f.doc
	}
	if err := applyTags(s, f.field.Tag, f.where); err != nil {
		return nil, err
	}
	if err := checkNode(s, f.where); err != nil {
		return nil, err
	}
	return s, nil
}

// jsonField is one struct field as encoding/json sees it.
type jsonField struct {
	name     string
	where    string // Go path for errors, e.g. "Widget.Spec.Ports"
	depth    int    // embedding depth, for name conflicts
	tagged   bool   // the name came from a json tag
	asString bool   // the ",string" option
	omit     bool   // omitempty or omitzero
	doc      string // description from the owning meta type, if any
	field    reflect.StructField
}

func (f jsonField) required() bool {
	if f.omit {
		return false
	}
	if _, optional := f.field.Tag.Lookup("optional"); optional {
		// Kinds that mirror Kubernetes' own types keep their JSON form
		// (no omitempty) and mark optional fields as Kubernetes does.
		return false
	}
	switch f.field.Type.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		return false
	}
	return true
}

// collect appends the JSON fields of struct t, flattening embedded structs
// as encoding/json does.
func (b *builder) collect(t reflect.Type, where string, depth int, out *[]jsonField) error {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, tagged := sf.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fwhere := where + "." + sf.Name
		et := deref(sf.Type)
		if sf.Anonymous && name == "" && et.Kind() == reflect.Struct {
			if err := b.flatten(et, fwhere, depth, out); err != nil {
				return err
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if hasOption(opts, "inline") {
			return fmt.Errorf("schema: %s: the inline option only works on embedded structs", fwhere)
		}
		*out = append(*out, jsonField{
			name:     cmpOr(name, sf.Name),
			where:    fwhere,
			depth:    depth,
			tagged:   tagged && name != "",
			asString: hasOption(opts, "string"),
			omit:     hasOption(opts, "omitempty") || hasOption(opts, "omitzero"),
			doc:      fieldDoc(t, cmpOr(name, sf.Name)),
			field:    sf,
		})
	}
	return nil
}

func (b *builder) flatten(t reflect.Type, where string, depth int, out *[]jsonField) error {
	if b.visiting[t] {
		return fmt.Errorf("schema: %s: recursive embedding of %s is not supported", where, t)
	}
	b.visiting[t] = true
	defer delete(b.visiting, t)
	return b.collect(t, where, depth+1, out)
}

// resolveFields applies encoding/json's rules for fields that share a name:
// the shallowest wins, then a tagged one; any other tie is an error here
// (encoding/json silently drops such fields).
func resolveFields(fields []jsonField) ([]jsonField, error) {
	best := make(map[string]int, len(fields))
	for i, f := range fields {
		j, seen := best[f.name]
		if !seen {
			best[f.name] = i
			continue
		}
		g := fields[j]
		switch {
		case f.depth < g.depth || (f.depth == g.depth && f.tagged && !g.tagged):
			best[f.name] = i
		case f.depth == g.depth && f.tagged == g.tagged:
			return nil, fmt.Errorf("schema: %s and %s both encode as JSON field %q", g.where, f.where, f.name)
		}
	}
	out := make([]jsonField, 0, len(best))
	for i, f := range fields {
		if best[f.name] == i {
			out = append(out, f)
		}
	}
	return out, nil
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func hasOption(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func typeName(t reflect.Type) string {
	t = deref(t)
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}
