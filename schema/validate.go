package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/kapi-dev/kapi/status"
)

// Validator checks decoded JSON values against a schema: types, nullable,
// required properties, enum, minimum/maximum, lengths, pattern, string
// formats, item and property counts, list-type set and map uniqueness,
// int-or-string, embedded resources and the value validations allOf,
// anyOf, oneOf and not. Messages are worded as kube-apiserver words them
// for custom resources, for example
//
//	spec.replicas: Invalid value: 5000: spec.replicas in body should be less than or equal to 1000
//
// Build one per schema with [NewValidator], at registration; it is safe
// for concurrent use and does not change the schema.
type Validator struct {
	root     *Schema
	patterns map[*Schema]*regexp.Regexp
	// names are the property names of each schema that has some and no
	// additional properties, sorted: an object is validated property
	// by property in that order, without its keys sorted each time.
	names map[*Schema][]property
	// formats are the checks of the string formats kube-apiserver
	// checks, by node.
	formats map[*Schema]func(string) bool
}

// property is a schema's property and its name.
type property struct {
	name   string
	schema *Schema
}

// NewValidator compiles the patterns of s and returns its validator.
func NewValidator(s *Schema) (*Validator, error) {
	v := &Validator{root: s, patterns: map[*Schema]*regexp.Regexp{}, names: map[*Schema][]property{},
		formats: map[*Schema]func(string) bool{}}
	if err := v.compile(s); err != nil {
		return nil, err
	}
	return v, nil
}

func (v *Validator) compile(s *Schema) error {
	if s == nil {
		return nil
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return fmt.Errorf("schema: pattern %q: %w", s.Pattern, err)
		}
		v.patterns[s] = re
	}
	if check := formatCheckOf(s); check != nil {
		v.formats[s] = check
	}
	if len(s.Properties) > 0 && s.AdditionalProperties == nil && v.names[s] == nil {
		for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
			v.names[s] = append(v.names[s], property{k, s.Properties[k]})
		}
	}
	for _, p := range s.Properties {
		if err := v.compile(p); err != nil {
			return err
		}
	}
	if err := v.compile(s.Items); err != nil {
		return err
	}
	for _, j := range junctorsOf(s, "") {
		if err := v.compile(j.s); err != nil {
			return err
		}
	}
	return v.compile(s.AdditionalProperties)
}

// Validate returns the problems of the decoded JSON value x (maps, slices,
// string, bool, int64, float64, nil), which sits at path p of its object
// (the zero Path for a kind's root).
func (v *Validator) Validate(p status.Path, x any) status.FieldErrors {
	var errs status.FieldErrors
	v.node(v.root, newPath(p), x, &errs)
	return errs
}

// ValidateValue returns the problems of x as a value of its own, as
// kube-apiserver checks a schema's default: the messages name x's
// fields from x ("a.b in body ..."; x itself is ""), and the errors
// are at p, or below it after a dot (p.a.b, p.[0]); those without a
// field (a junctor's) are at p.
func (v *Validator) ValidateValue(p status.Path, x any) status.FieldErrors {
	errs := v.Validate(status.Path{}, x)
	for _, e := range errs {
		switch e.Field {
		case "", noField.String():
			e.Field = p.String()
		default:
			e.Field = p.String() + "." + e.Field
		}
	}
	return errs
}

// node validates x against s, appending to errs, in the order
// kube-apiserver's validator checks a value: its type, its value
// validations, then what applies to the kind of value it is (a
// string's length, pattern and format; whatever the type the schema
// says: a wrong type does not stop them), its enum, and an object's
// members.
func (v *Validator) node(s *Schema, p *vpath, x any, errs *status.FieldErrors) {
	if s == nil {
		return
	}
	typeOK := v.typeOK(s, p, x, errs)
	if x != nil && s.hasJunctors() {
		v.junctors(s, p, x, errs)
	}
	switch t := x.(type) {
	case string:
		v.str(s, p, t, errs)
		if s.Format != "" {
			v.format(s, p, t, errs)
		}
	case int64, float64:
		number(s, p, x, errs)
	case []any:
		v.array(s, p, t, errs)
	}
	if len(s.Enum) > 0 && !enumHas(s.Enum, x) {
		*errs = append(*errs, status.NotSupported(p.path(), x, enumStrings(s.Enum)))
	}
	if t, ok := x.(map[string]any); ok && typeOK {
		v.object(s, p, t, errs)
	}
}

func jsonType(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", x)
}

// name is how a path is named inside messages; the root of the value
// validated is "", as kube-apiserver names it (" in body must be ...").
func name(p status.Path) string { return p.String() }

// str checks a string's length and pattern; as kube-apiserver, only
// the first that fails is reported.
func (v *Validator) str(s *Schema, p *vpath, x string, errs *status.FieldErrors) {
	n := int64(utf8.RuneCountInString(x))
	if s.MaxLength != nil && n > *s.MaxLength {
		*errs = append(*errs, status.TooLong(p.path(), x, int(*s.MaxLength)))
		return
	}
	if s.MinLength != nil && n < *s.MinLength {
		*errs = append(*errs, status.InvalidValue(p.path(), x,
			fmt.Sprintf("%s in body should be at least %d chars long", name(p.path()), *s.MinLength)))
		return
	}
	if s.Pattern == "" {
		return
	}
	if re := v.patterns[s]; re != nil && !re.MatchString(x) {
		*errs = append(*errs, status.InvalidValue(p.path(), x,
			fmt.Sprintf("%s in body should match '%s'", name(p.path()), s.Pattern)))
	}
}

// number checks a number as kube-apiserver does: that it fits the
// node's type and format, then multipleOf, minimum and maximum, each
// bound first checked to fit the type and format too.
func number(s *Schema, p *vpath, x any, errs *status.FieldErrors) {
	f, _ := toFloat(x)
	typ, format := numericFormat(s)
	at := name(p.path())
	fits := func(v any, what string) {
		if msg := rangeProblem(v, typ, format, what, at); msg != "" {
			*errs = append(*errs, status.InvalidValue(noField, "", msg))
		}
	}
	fits(x, "Checked")
	if m := s.MultipleOf; m != nil {
		fits(*m, "MultipleOf")
		if !isMultiple(f, *m) {
			*errs = append(*errs, status.InvalidValue(p.path(), x,
				fmt.Sprintf("%s in body should be a multiple of %s", at, formatNumber(*m))))
		}
	}
	if m := s.Minimum; m != nil {
		fits(*m, "Minimum boundary")
		if f < *m || s.ExclusiveMinimum && f == *m {
			word := "greater than or equal to"
			if s.ExclusiveMinimum {
				word = "greater than"
			}
			*errs = append(*errs, status.InvalidValue(p.path(), x,
				fmt.Sprintf("%s in body should be %s %s", at, word, formatNumber(*m))))
		}
	}
	if m := s.Maximum; m != nil {
		fits(*m, "Maximum boundary")
		if f > *m || s.ExclusiveMaximum && f == *m {
			word := "less than or equal to"
			if s.ExclusiveMaximum {
				word = "less than"
			}
			*errs = append(*errs, status.InvalidValue(p.path(), x,
				fmt.Sprintf("%s in body should be %s %s", at, word, formatNumber(*m))))
		}
	}
}

// isMultiple reports whether f is a whole multiple of m (> 0). For a
// fractional m the quotient is taken as f·(1/m), which keeps decimal
// factors such as 0.01 exact for the values people write, and a quotient
// within a few ulps of a whole number counts as whole. As in
// kube-apiserver, a quotient beyond ±2^53, where JSON numbers stop being
// exact integers, is not a multiple.
func isMultiple(f, m float64) bool {
	q := f / m
	if m < 1 {
		q = f * (1 / m)
	}
	if math.IsNaN(q) || math.Abs(q) > 1<<53 {
		return false
	}
	r := math.Round(q)
	return math.Abs(q-r) <= 1e-9*math.Max(1, math.Abs(r))
}

// formatNumber prints whole numbers without exponent or fraction.
func formatNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// array checks a list's items, then its length, then that the items of
// a set or map are unique, in kube-apiserver's order.
func (v *Validator) array(s *Schema, p *vpath, x []any, errs *status.FieldErrors) {
	for i, item := range x {
		p.push("", i)
		v.node(s.Items, p, item, errs)
		p.pop()
	}
	n := int64(len(x))
	if s.MinItems != nil && n < *s.MinItems {
		*errs = append(*errs, status.InvalidValue(p.path(), n,
			fmt.Sprintf("%s in body should have at least %d items", name(p.path()), *s.MinItems)))
	}
	if s.MaxItems != nil && n > *s.MaxItems {
		*errs = append(*errs, status.TooMany(p.path(), len(x), int(*s.MaxItems)))
	}
	switch s.XListType {
	case "set":
		uniqueSet(p, x, errs)
	case "map":
		uniqueKeys(s, p, x, errs)
	}
}

// uniqueSet reports every item of a set equal to an earlier one, in one
// pass over the items: each is looked up by its setKey.
func uniqueSet(p *vpath, x []any, errs *status.FieldErrors) {
	if !uniqueSmallStringSet(p, x, errs) {
		uniqueSetByKey(p, x, errs)
	}
}

// uniqueSetByKey is uniqueSet for any set.
func uniqueSetByKey(p *vpath, x []any, errs *status.FieldErrors) {
	seen := make(map[string]struct{}, len(x))
	for i, item := range x {
		k := setKey(item)
		if _, dup := seen[k]; dup {
			*errs = append(*errs, status.Duplicate(p.itemPath(i), item))
			continue
		}
		seen[k] = struct{}{}
	}
}

// setKey renders a decoded JSON value as a string that two values share
// exactly when jsonEqual holds between them: numbers by value, whatever
// their form, other values by their JSON encoding (object keys sorted).
func setKey(v any) string {
	if f, ok := toFloat(v); ok {
		if f == 0 {
			f = 0 // -0 equals 0
		}
		return string(strconv.AppendFloat([]byte{'n'}, f, 'g', -1, 64))
	}
	if s, ok := v.(string); ok {
		return "s" + s
	}
	j, _ := json.Marshal(v) // decoded JSON always marshals
	return "j" + string(j)
}

// smallList is the length up to which a list's items are compared with
// each other for uniqueness rather than looked up in a map made for it.
const smallList = 16

// uniqueSmallStringSet is uniqueSet for a short list of strings only,
// which most sets are: each item is compared with the earlier ones,
// without a key made for each and a map to hold them. It reports
// whether it checked x.
func uniqueSmallStringSet(p *vpath, x []any, errs *status.FieldErrors) bool {
	if len(x) > smallList {
		return false
	}
	var small [smallList]string
	strs := small[:len(x)]
	for i, item := range x {
		s, ok := item.(string)
		if !ok {
			return false
		}
		strs[i] = s
	}
	for i := 1; i < len(strs); i++ {
		if slices.Contains(strs[:i], strs[i]) {
			*errs = append(*errs, status.Duplicate(p.itemPath(i), x[i]))
		}
	}
	return true
}

// uniqueKeys reports every item of a list-type map whose keys equal an
// earlier item's; the value shown is the item's keys. A missing key takes
// its default, if any.
func uniqueKeys(s *Schema, p *vpath, x []any, errs *status.FieldErrors) {
	if len(x) <= smallList {
		uniqueSmallKeys(s, p, x, errs)
	} else {
		uniqueKeysByID(s, p, x, errs)
	}
}

// uniqueKeysByID is uniqueKeys for a list of any length.
func uniqueKeysByID(s *Schema, p *vpath, x []any, errs *status.FieldErrors) {
	seen := make(map[string]bool, len(x))
	var id []byte
	for i, item := range x {
		obj, ok := item.(map[string]any)
		if !ok {
			continue // reported by the items' type
		}
		id = appendKeyID(id[:0], s, obj)
		if seen[string(id)] {
			*errs = append(*errs, status.Duplicate(p.itemPath(i), itemKeys(s, obj)))
			continue
		}
		seen[string(id)] = true
	}
}

// uniqueSmallKeys is uniqueKeys for a short list: the items' key IDs
// are written one after another in one buffer, and each is compared with
// the earlier ones, rather than each made a string and put in a map.
func uniqueSmallKeys(s *Schema, p *vpath, x []any, errs *status.FieldErrors) {
	var buf [512]byte
	var starts, ends [smallList]int // item i's ID is ids[starts[i]:ends[i]]
	var named [smallList]bool       // item i is an object and has an ID
	ids := buf[:0]
	for i, item := range x {
		obj, ok := item.(map[string]any)
		if !ok {
			continue // reported by the items' type
		}
		starts[i] = len(ids)
		ids = appendKeyID(ids, s, obj)
		ends[i], named[i] = len(ids), true
		for j := range i {
			if named[j] && bytes.Equal(ids[starts[j]:ends[j]], ids[starts[i]:ends[i]]) {
				*errs = append(*errs, status.Duplicate(p.itemPath(i), itemKeys(s, obj)))
				break
			}
		}
	}
}

// itemKey is the value of key k of a list-type map item, its default
// when missing.
func itemKey(s *Schema, obj map[string]any, k string) any {
	kv, present := obj[k]
	if !present && s.Items != nil && s.Items.Properties[k] != nil {
		kv = s.Items.Properties[k].Default
	}
	return kv
}

// itemKeys are the keys of a list-type map item, by name.
func itemKeys(s *Schema, obj map[string]any) map[string]any {
	keys := make(map[string]any, len(s.XListMapKeys))
	for _, k := range s.XListMapKeys {
		keys[k] = itemKey(s, obj, k)
	}
	return keys
}

// appendKeyID appends the key values of a list-type map item as one
// string that differs between items exactly when their keys differ.
func appendKeyID(b []byte, s *Schema, obj map[string]any) []byte {
	for _, n := range s.XListMapKeys {
		switch v := itemKey(s, obj, n).(type) {
		case string:
			// Its length, then its bytes: as distinct as quoting it,
			// without reading it rune by rune.
			b = append(strconv.AppendInt(append(b, 's'), int64(len(v)), 10), ':')
			b = append(b, v...)
		case int64:
			b = strconv.AppendInt(append(b, 'i'), v, 10)
		case bool:
			b = strconv.AppendBool(append(b, 'b'), v)
		default:
			j, _ := json.Marshal(v) // decoded JSON always marshals
			b = append(append(b, 'j'), j...)
		}
		b = append(b, 0)
	}
	return b
}

func (v *Validator) object(s *Schema, p *vpath, x map[string]any, errs *status.FieldErrors) {
	n := int64(len(x))
	if s.MaxProperties != nil && n > *s.MaxProperties {
		*errs = append(*errs, status.TooMany(p.path(), len(x), int(*s.MaxProperties)))
	}
	if s.MinProperties != nil && n < *s.MinProperties {
		*errs = append(*errs, status.InvalidValue(p.path(), n,
			fmt.Sprintf("%s in body should have at least %d properties", name(p.path()), *s.MinProperties)))
	}
	if names := v.names[s]; names != nil && len(names) <= 2*len(x) {
		v.declared(names, p, x, errs)
	} else {
		v.members(s, p, x, errs)
	}
	for _, k := range s.Required {
		if _, ok := x[k]; !ok {
			*errs = append(*errs, status.Required(p.childPath(k), ""))
		}
	}
	if s.XEmbeddedResource {
		for _, k := range []string{"apiVersion", "kind"} {
			val, present := x[k]
			if present && val != "" || !present && s.hasRequired(k) {
				continue // set, or already reported as required
			}
			*errs = append(*errs, status.Required(p.childPath(k), "must not be empty"))
		}
	}
}

// members validates the members of x in key order.
func (v *Validator) members(s *Schema, p *vpath, x map[string]any, errs *status.FieldErrors) {
	var small [smallList]string // most objects: no allocation
	keys := small[:0]
	if len(x) > len(small) {
		keys = make([]string, 0, len(x))
	}
	for k := range x {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		ps := s.Properties[k]
		if ps == nil {
			ps = s.AdditionalProperties
		}
		p.push(k, -1)
		v.node(ps, p, x[k], errs)
		p.pop()
	}
}

// declared is members for a schema without additional properties, whose
// sorted property names are names: the members of x it declares, in
// the same order, are found by name, and the others have nothing to
// check.
func (v *Validator) declared(names []property, p *vpath, x map[string]any, errs *status.FieldErrors) {
	found := 0
	for _, ps := range names {
		val, ok := x[ps.name]
		if !ok {
			continue
		}
		p.push(ps.name, -1)
		v.node(ps.schema, p, val, errs)
		p.pop()
		if found++; found == len(x) {
			return
		}
	}
}

func (s *Schema) hasRequired(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

func enumHas(enum []any, x any) bool {
	for _, e := range enum {
		if jsonEqual(e, x) {
			return true
		}
	}
	return false
}

// enumStrings lists enum values as kube-apiserver does in "supported
// values": strings as they are, other values as JSON.
func enumStrings(enum []any) []string {
	out := make([]string, len(enum))
	for i, e := range enum {
		if s, ok := e.(string); ok {
			out[i] = s
			continue
		}
		b, _ := json.Marshal(e)
		out[i] = string(b)
	}
	return out
}
