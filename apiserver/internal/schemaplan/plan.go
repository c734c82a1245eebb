package schemaplan

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"reflect"

	"github.com/kapi-dev/kapi/fieldvalidation"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// Plan is what a kind's schema compiles to at registration: the
// defaulting, pruning and validation of the parts of an object that have
// rules. Typed kinds go through the JSON form of the top-level fields
// with rules only (metadata has its own checks); unstructured kinds use
// their content as it is.
type Plan struct {
	Root         *schema.Schema
	Unstructured bool
	validator    *schema.Validator // unstructured: of the root
	// nameRules is set when an unstructured kind's schema restricts
	// metadata.name or generateName, which validation then checks.
	nameRules bool
	Required  *schema.RequiredCheck // typed: when the body must show required fields
	Fields    []FieldPlan           // typed: top-level fields with rules
	Rules     schema.RuleValidator  // CEL rules, if the schema has any
	// RulesReadManagedFields is set when the rules may read
	// metadata.managedFields (see schema.MetadataNamesOnly).
	RulesReadManagedFields bool
}

// FieldPlan covers one top-level field of a typed kind.
type FieldPlan struct {
	index     int
	name      string
	schema    *schema.Schema
	validator *schema.Validator
	defaults  bool // the subtree has defaults
	// Defaulter applies them to the Go value; nil when the schema and
	// type are beyond it, and the JSON form is defaulted instead.
	Defaulter *schema.Defaulter
	// formDefaults applies them to the field's JSON form when it holds
	// no null; nil when the subtree has none.
	formDefaults *schema.FormDefaulter
	// omitted is the field's omitzero test (see schema.OmitsZero), nil
	// without the option: a value it calls zero is absent from the
	// object's JSON, so neither defaulted nor validated.
	omitted func(reflect.Value) bool
}

// Compile builds the plan of a kind's schema s for the objects
// newObj makes; engine compiles its rules.
func Compile(s *schema.Schema, newObj func() meta.Object, engine schema.RuleEngine) (*Plan, error) {
	p := &Plan{Root: s}
	if err := p.compileRules(engine); err != nil {
		return nil, err
	}
	sample := newObj()
	if _, ok := sample.(*meta.Unstructured); ok {
		p.Unstructured = true
		v, err := schema.NewValidator(s)
		if err != nil {
			return nil, err
		}
		p.validator = v
		if m := s.Lookup("metadata"); m != nil {
			p.nameRules = hasRules(m.Properties["name"]) || hasRules(m.Properties["generateName"])
		}
		return p, nil
	}
	t := reflect.TypeOf(sample)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if err := schema.CheckZeroValues(s, t); err != nil {
		return nil, err
	}
	p.Required = schema.NewRequiredCheck(s, reflect.TypeOf(sample))
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := JSONName(f)
		if f.Anonymous || !f.IsExported() || name == "-" || name == "metadata" {
			continue
		}
		fs := s.Properties[name]
		if !hasRules(fs) {
			continue
		}
		v, err := schema.NewValidator(fs)
		if err != nil {
			return nil, err
		}
		fp := FieldPlan{index: i, name: name, schema: fs, validator: v, defaults: hasDefaults(fs), omitted: schema.OmitsZero(f)}
		if fp.defaults {
			fp.formDefaults = schema.NewFormDefaulter(fs)
			d, err := schema.NewDefaulter(fs, f.Type)
			switch {
			case err == nil:
				fp.Defaulter = d
			case !errors.Is(err, schema.ErrNotPlannable):
				return nil, err
			}
		}
		p.Fields = append(p.Fields, fp)
	}
	return p, nil
}

// hasRules reports whether values of s can fail validation or be
// defaulted, beyond their JSON type, which Go types guarantee.
func hasRules(s *schema.Schema) bool {
	if s == nil {
		return false
	}
	if s.AllOf != nil || s.AnyOf != nil || s.OneOf != nil || s.Not != nil {
		return true
	}
	if s.Default != nil || s.Minimum != nil || s.Maximum != nil || s.Pattern != "" || len(s.Enum) > 0 ||
		s.MinLength != nil || s.MaxLength != nil || s.MinItems != nil || s.MaxItems != nil ||
		s.MinProperties != nil || s.MaxProperties != nil || s.XListType == "set" || s.XListType == "map" ||
		s.XEmbeddedResource || s.XIntOrString {
		return true
	}
	for _, p := range s.Properties {
		if hasRules(p) {
			return true
		}
	}
	return hasRules(s.Items) || hasRules(s.AdditionalProperties)
}

func hasDefaults(s *schema.Schema) bool {
	if s == nil {
		return false
	}
	if s.Default != nil {
		return true
	}
	for _, p := range s.Properties {
		if hasDefaults(p) {
			return true
		}
	}
	return hasDefaults(s.Items) || hasDefaults(s.AdditionalProperties)
}

// ApplyDefaults fills in the schema's defaults.
func (p *Plan) ApplyDefaults(obj meta.Object) error {
	if p == nil {
		return nil
	}
	if p.Unstructured {
		p.Root.ApplyDefaults(obj.(*meta.Unstructured).Content)
		return nil
	}
	for _, fp := range p.Fields {
		if !fp.defaults {
			continue
		}
		fv := reflect.ValueOf(obj).Elem().Field(fp.index)
		var err error
		switch {
		case fp.absent(fv):
			// Nothing below an absent object is defaulted; it gets
			// its own default, if it has one.
			err = fp.setDefault(fv)
		case fp.Defaulter != nil:
			_, err = fp.Defaulter.Default(fv)
		default:
			err = fp.defaultJSONForm(fv)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// absent reports whether the field's value fv is left out of the
// object's JSON (omitzero).
func (fp *FieldPlan) absent(fv reflect.Value) bool {
	return fp.omitted != nil && fp.omitted(fv)
}

// setDefault sets fv, absent, to the field's own default, defaulted in
// turn, when it has one.
func (fp *FieldPlan) setDefault(fv reflect.Value) error {
	if fp.schema.Default == nil {
		return nil
	}
	b, err := json.Marshal(fp.schema.Default)
	if err != nil {
		return err
	}
	x, err := JSONFormOf(b) // a copy: the schema's must not change
	if err != nil {
		return err
	}
	fp.schema.ApplyDefaults(x)
	return setJSON(fv, x)
}

// defaultJSONForm defaults fv through its JSON form, for a field whose
// type the schema's Go plan does not follow.
func (fp *FieldPlan) defaultJSONForm(fv reflect.Value) error {
	x, err := JSONForm(fv)
	if err != nil {
		return err
	}
	if !fp.schema.ApplyDefaults(x) {
		return nil
	}
	return setJSON(fv, x)
}

// setJSON sets fv to x, a JSON form, decoded into a fresh value:
// decoding into the old one would merge maps instead of replacing them.
func setJSON(fv reflect.Value, x any) error {
	b, err := json.Marshal(x)
	if err != nil {
		return err
	}
	fresh := reflect.New(fv.Type())
	if err := json.Unmarshal(b, fresh.Interface()); err != nil {
		return err
	}
	fv.Set(fresh.Elem())
	return nil
}

// Validate checks obj against the schema. decoded, when not nil, is obj
// decoded from its JSON (as the field manager decodes it): a typed
// object's fields are then validated from it rather than encoded again;
// nullFree says decoded holds no null anywhere.
func (p *Plan) Validate(obj meta.Object, decoded map[string]any, nullFree bool) (status.FieldErrors, error) {
	if p == nil {
		return nil, nil
	}
	if p.Unstructured {
		u := obj.(*meta.Unstructured)
		content := maps.Clone(u.Content)
		if content == nil {
			content = map[string]any{}
		}
		content["apiVersion"], content["kind"] = u.APIVersion, u.Kind
		if p.nameRules {
			content["metadata"] = nameFields(u)
		}
		return p.validator.Validate(status.Path{}, content), nil
	}
	var errs status.FieldErrors
	for _, fp := range p.Fields {
		// A field the object's JSON leaves out (empty, omitempty) reads
		// as its own encoding, null or empty, as before.
		x, ok := decoded[fp.name]
		if !ok {
			fv := reflect.ValueOf(obj).Elem().Field(fp.index)
			if fp.absent(fv) {
				continue // an absent object has nothing to check
			}
			var err error
			if x, err = JSONForm(fv); err != nil {
				return nil, err
			}
		}
		switch {
		case ok && nullFree && fp.formDefaults != nil:
			fp.formDefaults.Apply(x)
		case ok && nullFree:
			// Without nulls or defaults, defaulting changes nothing.
		default:
			// Unset pointers of fields without omitempty encode as
			// null: drop those, as decoding a custom resource does.
			fp.schema.ApplyDefaults(x)
		}
		errs = append(errs, fp.validator.Validate(status.NewPath(fp.name), x)...)
	}
	return errs, nil
}

// nameFields is the part of an unstructured object's metadata a schema
// may restrict: its name and generateName, when set.
func nameFields(u *meta.Unstructured) map[string]any {
	m := map[string]any{}
	if u.Name != "" {
		m["name"] = u.Name
	}
	if u.GenerateName != "" {
		m["generateName"] = u.GenerateName
	}
	return m
}

// Prune drops the fields an unstructured object's schema does not know
// and returns them as the unknown-field errors of field validation.
func (p *Plan) Prune(obj meta.Object) []error {
	if p == nil || !p.Unstructured {
		return nil
	}
	u := obj.(*meta.Unstructured)
	var out []error
	for _, path := range u.DroppedMetadataFields() {
		out = append(out, fieldvalidation.Unknown(path))
	}
	for _, path := range p.Root.Prune(u.Content) {
		out = append(out, fieldvalidation.Unknown(path))
	}
	return out
}

// JSONForm returns the decoded JSON form of a Go value, with integers as
// int64: its JSON read by package patch's decoder, which gives what
// encoding/json with UseNumber and [numbers] give at a fraction of the
// cost. A document that decoder refuses (a number out of float64's range
// in a raw JSON field, which numbers takes as an infinity) takes the
// general path.
func JSONForm(v reflect.Value) (any, error) {
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return nil, err
	}
	if x, err := patch.DecodeValue(b); err == nil {
		return x, nil
	}
	return JSONFormOf(b)
}

// JSONFormOf is the general path of jsonForm: b decoded by encoding/json
// with UseNumber, numbers then converted by [numbers].
func JSONFormOf(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	return numbers(x), nil
}

// numbers turns json.Number into int64, or float64 when not an integer.
func numbers(x any) any {
	switch t := x.(type) {
	case map[string]any:
		for k, v := range t {
			t[k] = numbers(v)
		}
	case []any:
		for i, v := range t {
			t[i] = numbers(v)
		}
	case json.Number:
		if n, err := t.Int64(); err == nil {
			return n
		}
		f, _ := t.Float64()
		return f
	}
	return x
}

func JSONName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	for i := 0; i < len(tag); i++ {
		if tag[i] == ',' {
			tag = tag[:i]
			break
		}
	}
	if tag == "" {
		return f.Name
	}
	return tag
}
