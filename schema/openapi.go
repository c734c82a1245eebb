package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"

	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/meta"
)

// FromOpenAPI builds a schema from an OpenAPI v3 schema document in JSON
// or YAML: the openAPIV3Schema of a CustomResourceDefinition version, or
// a document holding it under that key. The document must be structural,
// as Kubernetes requires of CRDs: every node has a type (unless it is
// int-or-string or preserves unknown fields), items is one schema,
// properties and additionalProperties do not meet, and there are no
// references, no patternProperties and no uniqueItems. allOf, anyOf,
// oneOf and not hold value validations only, with kube-apiserver's
// restrictions and messages (no type, default, description, nullable,
// additionalProperties, x-kubernetes extensions or metadata in them; the
// int-or-string anyOf of type integer and type string aside), and every
// property and items those of the root name must also be specified
// outside them (kube-apiserver checks the root's only).
// Unknown keywords are errors, as are constraints that do not fit their
// node.
//
// The root must be an object. It gets apiVersion and kind (strings) and
// metadata (the ObjectMeta schema) unless it names them itself; as for
// CRDs, a metadata node may say no more than type: object and restrict
// the strings name and generateName with value validations (maxLength,
// pattern, enum, ...), which the ObjectMeta schema then carries.
func FromOpenAPI(data []byte) (*Schema, error) {
	root, err := decodeDocument(data)
	if err != nil {
		return nil, err
	}
	if inner, ok := root["openAPIV3Schema"]; ok && len(root) == 1 {
		if root, ok = inner.(map[string]any); !ok {
			return nil, errors.New("schema: openAPIV3Schema must be an object")
		}
	}
	s, err := parseNode(root, "openAPIV3Schema")
	if err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, errors.New("schema: openAPIV3Schema: the root must be of type object")
	}
	if err := checkComplete(s, "openAPIV3Schema"); err != nil {
		return nil, err
	}
	if err := addObjectFields(s, "openAPIV3Schema"); err != nil {
		return nil, err
	}
	return s, nil
}

// decodeDocument reads a JSON or YAML object, keeping integers as int64.
func decodeDocument(data []byte) (map[string]any, error) {
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, fmt.Errorf("schema: the document is neither JSON nor YAML: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("schema: decoding the document: %w", err)
	}
	m, ok := normalizeNumbers(v).(map[string]any)
	if !ok {
		return nil, errors.New("schema: the document must be an object")
	}
	return m, nil
}

// addObjectFields gives an object at the root of a resource (the kind's
// root, or an embedded resource) the apiVersion, kind and metadata fields
// every object has.
func addObjectFields(s *Schema, where string) error {
	if s.Properties == nil {
		s.Properties = map[string]*Schema{}
	}
	for _, name := range []string{"apiVersion", "kind"} {
		p := s.Properties[name]
		switch {
		case p == nil:
			s.Properties[name] = &Schema{Type: "string"}
		case p.Type != "string":
			return fmt.Errorf("schema: %s.properties.%s: must be of type string", where, name)
		}
	}
	om, err := FromType(reflect.TypeFor[meta.ObjectMeta]())
	if err != nil {
		return err
	}
	if p := s.Properties["metadata"]; p != nil {
		if err := restrictMetadata(om, p, where+".properties.metadata"); err != nil {
			return err
		}
	}
	s.Properties["metadata"] = om
	order := []string{"apiVersion", "kind", "metadata"}
	for _, name := range s.PropertyOrder {
		if name != "apiVersion" && name != "kind" && name != "metadata" {
			order = append(order, name)
		}
	}
	s.PropertyOrder = order
	return nil
}

// restrictMetadata checks the metadata node p of an object, which may
// only restrict name and generateName (strings) with value validations,
// as kube-apiserver allows in a CustomResourceDefinition's schema, and
// puts those validations on om, the ObjectMeta schema.
func restrictMetadata(om, p *Schema, where string) error {
	bare := *p
	bare.Type, bare.Properties, bare.PropertyOrder = "", nil, nil
	if p.Type != "object" || !reflect.DeepEqual(bare, Schema{}) {
		return fmt.Errorf("schema: %s: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified", where)
	}
	for _, name := range p.PropertyOrder {
		r := p.Properties[name]
		if name != "name" && name != "generateName" {
			return fmt.Errorf("schema: %s: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified", where)
		}
		if r.Type != "string" {
			return fmt.Errorf("schema: %s.properties.%s: must be of type string", where, name)
		}
		field := om.Properties[name].DeepCopy()
		field.MinLength, field.MaxLength, field.Pattern, field.Enum, field.Format = r.MinLength, r.MaxLength, r.Pattern, r.Enum, r.Format
		field.AllOf, field.AnyOf, field.OneOf, field.Not = r.AllOf, r.AnyOf, r.OneOf, r.Not
		om.Properties[name] = field
	}
	return nil
}

// keyword parses one keyword of a schema node into s.
type keyword func(s *Schema, v any, where string) error

// keywordFor returns the parser of a supported keyword. Keywords that
// only document (title, example, externalDocs) are accepted and dropped.
func keywordFor(name string) keyword {
	switch name {
	case "type":
		return kwType
	case "format":
		return kwString(func(s *Schema, v string) { s.Format = v })
	case "description":
		return kwString(func(s *Schema, v string) { s.Description = v })
	case "title", "example", "externalDocs":
		return kwIgnore
	case "properties":
		return kwProperties
	case "required":
		return kwRequired
	case "items":
		return kwItems
	case "additionalProperties":
		return kwAdditional
	case "default":
		return func(s *Schema, v any, _ string) error { s.Default = v; return nil }
	case "enum":
		return kwEnum
	case "minimum":
		return kwNumber(func(s *Schema, f float64) { s.Minimum = &f })
	case "maximum":
		return kwNumber(func(s *Schema, f float64) { s.Maximum = &f })
	case "multipleOf":
		return kwMultipleOf
	case "exclusiveMinimum":
		return kwBool(func(s *Schema, b bool) { s.ExclusiveMinimum = b })
	case "exclusiveMaximum":
		return kwBool(func(s *Schema, b bool) { s.ExclusiveMaximum = b })
	case "pattern":
		return kwPattern
	case "minLength":
		return kwCount(func(s *Schema, n *int64) { s.MinLength = n })
	case "maxLength":
		return kwCount(func(s *Schema, n *int64) { s.MaxLength = n })
	case "minItems":
		return kwCount(func(s *Schema, n *int64) { s.MinItems = n })
	case "maxItems":
		return kwCount(func(s *Schema, n *int64) { s.MaxItems = n })
	case "minProperties":
		return kwCount(func(s *Schema, n *int64) { s.MinProperties = n })
	case "maxProperties":
		return kwCount(func(s *Schema, n *int64) { s.MaxProperties = n })
	case "nullable":
		return kwBool(func(s *Schema, b bool) { s.Nullable = b })
	case "x-kubernetes-list-type":
		return kwString(func(s *Schema, v string) { s.XListType = v })
	case "x-kubernetes-list-map-keys":
		return kwListMapKeys
	case "x-kubernetes-map-type":
		return kwString(func(s *Schema, v string) { s.XMapType = v })
	case "x-kubernetes-preserve-unknown-fields":
		return kwTrue(func(s *Schema) { s.XPreserveUnknownFields = true })
	case "x-kubernetes-int-or-string":
		return kwTrue(func(s *Schema) { s.XIntOrString = true })
	case "x-kubernetes-embedded-resource":
		return kwTrue(func(s *Schema) { s.XEmbeddedResource = true })
	case "x-kubernetes-patch-strategy":
		return kwString(func(s *Schema, v string) { s.XPatchStrategy = v })
	case "x-kubernetes-patch-merge-key":
		return kwString(func(s *Schema, v string) { s.XPatchMergeKey = v })
	case "x-kubernetes-validations":
		return kwValidations
	case "allOf", "anyOf", "oneOf":
		return kwJunctor(name, true)
	case "not":
		return kwNot
	}
	return nil
}

// refusal says why a keyword of OpenAPI that a structural schema may not
// use here is refused, or "" for other keywords.
func refusal(name string) string {
	switch name {
	case "$ref":
		return "references are not allowed in a structural schema"
	case "definitions":
		return "definitions are not allowed in a structural schema"
	case "dependencies":
		return "dependencies are not allowed in a structural schema"
	case "additionalItems":
		return "additionalItems is not allowed in a structural schema"
	case "patternProperties":
		return "patternProperties is not allowed in a structural schema"
	case "uniqueItems":
		return "uniqueItems cannot be set to true, use x-kubernetes-list-type: set"
	case "id":
		return "id is not allowed in a structural schema"
	case "$schema":
		return "$schema is not allowed in a structural schema"
	}
	return ""
}

// parseNode parses one schema node; where is its JSON path in the
// document, for errors.
func parseNode(m map[string]any, where string) (*Schema, error) {
	s := &Schema{}
	for _, k := range sortedKeys(m) {
		if why := refusal(k); why != "" {
			return nil, fmt.Errorf("schema: %s.%s: %s", where, k, why)
		}
		kw := keywordFor(k)
		if kw == nil {
			return nil, fmt.Errorf("schema: %s: unknown keyword %q", where, k)
		}
		if err := kw(s, m[k], where+"."+k); err != nil {
			return nil, err
		}
	}
	if err := structural(s, where); err != nil {
		return nil, err
	}
	if s.XEmbeddedResource {
		if err := addObjectFields(s, where); err != nil {
			return nil, err
		}
	}
	if err := checkNode(s, where); err != nil {
		return nil, err
	}
	return s, nil
}

// structural checks the rules that make a node structural and that its
// constraints fit its type.
func structural(s *Schema, where string) error {
	fail := func(msg string) error { return fmt.Errorf("schema: %s: %s", where, msg) }
	switch {
	case s.Type == "" && !s.XIntOrString && !s.XPreserveUnknownFields:
		return fail("type is required (unless x-kubernetes-int-or-string or x-kubernetes-preserve-unknown-fields is true)")
	case s.XIntOrString && s.Type != "":
		return fail("x-kubernetes-int-or-string needs an empty type")
	case s.XEmbeddedResource && s.Type != "object":
		return fail("x-kubernetes-embedded-resource needs type object")
	case s.Type == "array" && s.Items == nil:
		return fail("items is required for arrays")
	case s.Items != nil && s.Type != "array":
		return fail("items is only allowed for arrays")
	case len(s.Properties) > 0 && s.AdditionalProperties != nil:
		return fail("properties and additionalProperties are mutually exclusive")
	case (len(s.Properties) > 0 || s.AdditionalProperties != nil || len(s.Required) > 0) && s.Type != "object" && s.Type != "":
		return fail("properties, additionalProperties and required are only allowed for objects")
	case s.XPreserveUnknownFields && s.Type != "object" && s.Type != "":
		return fail("x-kubernetes-preserve-unknown-fields needs type object or an empty type")
	case s.XMapType != "" && s.XMapType != "atomic" && s.XMapType != "granular":
		return fail("x-kubernetes-map-type must be atomic or granular")
	case s.XMapType != "" && s.Type != "object":
		return fail("x-kubernetes-map-type is only allowed for objects")
	case s.XListType != "" && s.XListType != "atomic" && s.XListType != "set" && s.XListType != "map":
		return fail("x-kubernetes-list-type must be atomic, set or map")
	case s.XListType != "" && s.Type != "array":
		return fail("x-kubernetes-list-type is only allowed for arrays")
	}
	return fitsType(s, fail)
}

// fitsType checks that each constraint applies to the node's type.
func fitsType(s *Schema, fail func(string) error) error {
	numeric := s.Type == "integer" || s.Type == "number"
	stringy := s.Type == "string" || s.XIntOrString
	switch {
	case (s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum || s.ExclusiveMaximum) && !numeric && !s.XIntOrString:
		return fail("minimum and maximum are only allowed for numbers")
	case s.MultipleOf != nil && !numeric && !s.XIntOrString:
		return fail("multipleOf is only allowed for numbers")
	case (s.MinLength != nil || s.MaxLength != nil || s.Pattern != "") && !stringy:
		return fail("minLength, maxLength and pattern are only allowed for strings")
	case (s.MinItems != nil || s.MaxItems != nil) && s.Type != "array":
		return fail("minItems and maxItems are only allowed for arrays")
	case (s.MinProperties != nil || s.MaxProperties != nil) && s.Type != "object":
		return fail("minProperties and maxProperties are only allowed for objects")
	}
	for _, name := range s.Required {
		if s.Properties[name] == nil && s.AdditionalProperties == nil && !s.XPreserveUnknownFields {
			return fail(fmt.Sprintf("required field %q is not a property", name))
		}
	}
	return nil
}

func kwIgnore(*Schema, any, string) error { return nil }

func kwType(s *Schema, v any, where string) error {
	t, ok := v.(string)
	if !ok {
		return fmt.Errorf("schema: %s: must be a single type name", where)
	}
	switch t {
	case "object", "array", "string", "integer", "number", "boolean":
		s.Type = t
		return nil
	}
	return fmt.Errorf("schema: %s: unsupported type %q (want object, array, string, integer, number or boolean)", where, t)
}

func kwString(set func(*Schema, string)) keyword {
	return func(s *Schema, v any, where string) error {
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("schema: %s: must be a string", where)
		}
		set(s, str)
		return nil
	}
}

func kwBool(set func(*Schema, bool)) keyword {
	return func(s *Schema, v any, where string) error {
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("schema: %s: must be a boolean", where)
		}
		set(s, b)
		return nil
	}
}

// kwTrue parses an extension that may only be true.
func kwTrue(set func(*Schema)) keyword {
	return func(s *Schema, v any, where string) error {
		if b, ok := v.(bool); !ok || !b {
			return fmt.Errorf("schema: %s: must be true or left out", where)
		}
		set(s)
		return nil
	}
}

func kwNumber(set func(*Schema, float64)) keyword {
	return func(s *Schema, v any, where string) error {
		f, ok := toFloat(v)
		if !ok {
			return fmt.Errorf("schema: %s: must be a number", where)
		}
		set(s, f)
		return nil
	}
}

// kwMultipleOf reads multipleOf, which JSON Schema requires to be
// greater than zero.
func kwMultipleOf(s *Schema, v any, where string) error {
	f, ok := toFloat(v)
	if !ok || f <= 0 || math.IsInf(f, 0) {
		return fmt.Errorf("schema: %s: must be a number greater than zero", where)
	}
	s.MultipleOf = &f
	return nil
}

func kwCount(set func(*Schema, *int64)) keyword {
	return func(s *Schema, v any, where string) error {
		f, ok := toFloat(v)
		if !ok || f < 0 || f != math.Trunc(f) {
			return fmt.Errorf("schema: %s: must be a non-negative integer", where)
		}
		n := int64(f)
		set(s, &n)
		return nil
	}
}

func kwPattern(s *Schema, v any, where string) error {
	p, ok := v.(string)
	if !ok {
		return fmt.Errorf("schema: %s: must be a string", where)
	}
	if _, err := regexp.Compile(p); err != nil {
		return fmt.Errorf("schema: %s: not a regular expression: %w", where, err)
	}
	s.Pattern = p
	return nil
}

func kwEnum(s *Schema, v any, where string) error {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return fmt.Errorf("schema: %s: must be a non-empty array", where)
	}
	s.Enum = list
	return nil
}

func stringList(v any, where string) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("schema: %s: must be an array of strings", where)
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		str, ok := e.(string)
		if !ok || str == "" {
			return nil, fmt.Errorf("schema: %s: must be an array of non-empty strings", where)
		}
		if slicesContains(out, str) {
			return nil, fmt.Errorf("schema: %s: %q is listed twice", where, str)
		}
		out = append(out, str)
	}
	return out, nil
}

func kwRequired(s *Schema, v any, where string) error {
	list, err := stringList(v, where)
	s.Required = list
	return err
}

func kwListMapKeys(s *Schema, v any, where string) error {
	list, err := stringList(v, where)
	s.XListMapKeys = list
	return err
}

func kwProperties(s *Schema, v any, where string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("schema: %s: must be an object", where)
	}
	s.Properties = make(map[string]*Schema, len(m))
	for _, name := range sortedKeys(m) {
		pm, ok := m[name].(map[string]any)
		if !ok {
			return fmt.Errorf("schema: %s.%s: must be a schema object", where, name)
		}
		p, err := parseNode(pm, where+"."+name)
		if err != nil {
			return err
		}
		s.Properties[name] = p
		s.PropertyOrder = append(s.PropertyOrder, name)
	}
	return nil
}

func kwItems(s *Schema, v any, where string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("schema: %s: must be one schema (tuples are not structural)", where)
	}
	items, err := parseNode(m, where)
	s.Items = items
	return err
}

func kwAdditional(s *Schema, v any, where string) error {
	switch t := v.(type) {
	case bool:
		if !t {
			return fmt.Errorf("schema: %s: false is not allowed in a structural schema", where)
		}
		// true admits any value, as preserve-unknown-fields does for
		// the map's values.
		s.AdditionalProperties = &Schema{XPreserveUnknownFields: true, Unschematic: true}
		return nil
	case map[string]any:
		p, err := parseNode(t, where)
		s.AdditionalProperties = p
		return err
	}
	return fmt.Errorf("schema: %s: must be a schema or true", where)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func slicesContains(list []string, v string) bool {
	for _, e := range list {
		if e == v {
			return true
		}
	}
	return false
}
