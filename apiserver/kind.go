package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"reflect"

	"github.com/kapi-dev/kapi/fieldvalidation"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// Kind registers one Go type as a served kind.
type Kind struct {
	// Group, Version and Kind name the kind; Group is "" for the core
	// group.
	Group, Version, Kind string
	// Resource is the plural lower-case resource name ("widgets").
	Resource string
	// Singular is the singular resource name; default: Kind lower-cased.
	Singular string
	// ShortNames are abbreviations kubectl accepts ("wd").
	ShortNames []string
	// Categories group resources for kubectl ("all").
	Categories []string
	// Namespaced is true for namespaced kinds, false for cluster-scoped.
	Namespaced bool
	// New returns a new empty object of the kind. Required.
	New func() meta.Object
	// Schema describes the kind's structure; default: built from New's
	// type by reflection. Its defaults are applied and its constraints
	// checked on every write; for kinds served as meta.Unstructured
	// (typically with a schema from schema.FromOpenAPI) the fields it
	// does not know are also pruned, and reported as field validation
	// asks.
	//
	// The required fields of a Go type (neither a pointer, a slice nor a
	// map, without omitempty) must be present in every body written in
	// JSON, YAML or CBOR, or the write is 422 Invalid with a
	// FieldValueRequired cause; protobuf bodies cannot tell a zero value
	// from an absent one and are not checked. A Go field whose zero
	// value JSON leaves out (a number or boolean tagged omitempty) must
	// be a pointer when the schema gives it a non-zero default or a
	// bound that rejects zero: otherwise an explicit 0 would become the
	// default, or a write of 0 would remove the field instead of
	// failing, and Register refuses the kind.
	//
	// Defaults apply below an object only when a write has it, as
	// kube-apiserver defaults a custom resource. A struct field (a spec)
	// tagged omitzero is absent when zero: an object written without it
	// is stored without it, and one that sent it, even as {}, has it
	// defaulted (the body is read again to tell them apart). Without
	// omitzero a struct field is always present, and always defaulted.
	Schema *schema.Schema
	// Subresources are the status and scale subresources served.
	Subresources Subresources
	// CreateFromEmpty records a create in managedFields as
	// kube-apiserver records one of the kinds compiled into it: as a
	// change from the kind's empty object (New's), so that what that
	// object has already, such as a Namespace's empty spec, is nobody's.
	// Unset, as for custom resources, a create is recorded as a change
	// from nothing.
	CreateFromEmpty bool
	// AllowCreateOnUpdate lets a PUT to a missing name create it.
	AllowCreateOnUpdate bool
	// RequireResourceVersion refuses with 422 Invalid an update of a
	// stored object that names no resourceVersion to replace (a PUT
	// without one, a patch removing it), as kube-apiserver refuses it
	// for custom resources and CustomResourceDefinitions; by default such
	// an update replaces whatever is stored, as kube allows for most
	// built-in kinds.
	RequireResourceVersion bool
	// Storage stores this kind; default: the server's storage.
	Storage storage.Interface
	// StoredAs, when set, keeps the kind's objects as another kind's, in
	// that kind's storage and form, converted on every write and read
	// (see [StoredAs]).
	StoredAs *StoredAs
	// Default fills in defaults on every write, after the schema's.
	Default func(ctx context.Context, obj meta.Object)
	// Validate checks an object before it is stored, after the schema's
	// checks; old is nil on create. Field errors (the schema's and the
	// hook's) become one 422 Invalid Status.
	Validate func(ctx context.Context, obj, old meta.Object) status.FieldErrors
	// ValidateStatus, when set, checks writes to /status in place of
	// Validate, as kube-apiserver's status strategies check only what a
	// status write may change (a CustomResourceDefinition's status write
	// is not held to the rules of its spec or storedVersions).
	ValidateStatus func(ctx context.Context, obj, old meta.Object) status.FieldErrors
	// ValidateName returns what is wrong with an object's name (and with
	// the names its generateName makes); default: it must be a DNS
	// subdomain, kube-apiserver's rule for most kinds. See
	// [PathSegmentNameErrors].
	ValidateName func(name string) []string
	// SelectableFields are the kind-specific fields field selectors may
	// name ("spec.color"), each with the function that reads it from an
	// object; metadata.name and metadata.namespace are always selectable.
	SelectableFields map[string]func(obj meta.Object) string
	// Admit, when set, admits or rejects every write of the kind (see
	// [AdmissionFunc]) first of all admission, before the server's
	// MutatingAdmission: after the request's object is decoded and
	// defaulted, before its name is generated and before it is
	// validated; it must not change the object. Like all admission, it
	// sees objects in the version of the request. A
	// CustomResourceDefinition being deleted uses it to refuse new
	// objects, where kube-apiserver refuses them: an invalid object is
	// refused as new, not as invalid.
	Admit AdmissionFunc
	// PrinterColumns are the columns of the Table kubectl prints, after
	// Name; default: Created At.
	PrinterColumns []PrinterColumn
	// PrepareForCreate, when set, sets what the server decides on create
	// whatever the request says (a Namespace's phase and finalizer). It
	// runs where kube-apiserver runs its strategies' PrepareForCreate:
	// after defaulting, mutating admission and generateName, and after
	// managedFields were recorded, so what it sets is not recorded as the
	// request's; then the object is validated.
	PrepareForCreate func(obj meta.Object)
	// PrepareForUpdate, when set, carries over from the stored object
	// what writes to the main resource may not change (a Namespace's
	// spec.finalizers, which only /finalize changes). It runs where
	// PrepareForCreate runs, on update: the request's field manager is
	// recorded as owning what it sent, as in kube-apiserver, though the
	// hook undoes it.
	PrepareForUpdate func(obj, old meta.Object)
	// PrepareForStatusUpdate, when set, makes a write to /status keep
	// the request's object, metadata included (labels, annotations,
	// finalizers, owner references), as the status strategies of kube's
	// built-in kinds do (a Namespace's); the hook carries over from the
	// stored object old what such a write may not change (the
	// Namespace's spec). Unset, a write to /status changes status only,
	// as for custom resources. It runs before defaulting.
	PrepareForStatusUpdate func(obj, old meta.Object)
	// Canonicalize, when set, brings the object to store in line with
	// itself on every write (create, update, every patch, apply, the
	// status subresource), after validation and before validating
	// admission, as the Canonicalize of kube's strategies does: a
	// Namespace's kubernetes.io/metadata.name label follows its name,
	// which generateName may have only just chosen. It reports whether
	// it changed the object. What it changes is stored but not recorded
	// in managedFields, which were recorded before.
	Canonicalize func(obj meta.Object) (changed bool)
	// NoGeneration leaves metadata.generation to the client, as the
	// strategies of kube-apiserver's built-in kinds that keep none do
	// (Events, ConfigMaps, Secrets, Namespaces, ServiceAccounts, Leases,
	// the RBAC kinds; not CustomResourceDefinitions): a create keeps the
	// generation its body states (none, usually) and every later write
	// keeps the stored one, never bumping it. By default a create sets
	// generation 1 and a write that changes anything but metadata and
	// status bumps it.
	NoGeneration bool
	// Finalize, when set, serves the /finalize subresource (get, update,
	// patch): a write there changes only what Finalize copies from the
	// request's object src onto the stored object dst.
	Finalize func(dst, src meta.Object)
	// DeletePropagation is the policy of a delete that names none:
	// Background (the default), Foreground or Orphan, as kube-apiserver's
	// per-kind defaults.
	DeletePropagation meta.DeletionPropagation
	// ReturnDeletedObject answers a DELETE that removes an object with
	// the object as it was deleted, as kube-apiserver's stores of some
	// kinds do (a Namespace's), rather than with a Status of Success.
	ReturnDeletedObject bool
	// Deletion, when set, makes deleting an object of the kind two-phase
	// beyond its metadata finalizers (see [DeletionHooks]).
	Deletion *DeletionHooks

	// Versions serves the kind in several versions: it lists them all,
	// and Version is left empty. Objects are stored in the one marked
	// Storage and converted to the version of each request: Go types by
	// [Hub] and [Convertible], run-time kinds by Convert. A write is
	// defaulted and validated (schema, CEL rules) with the schema of the
	// version of the request, admission sees it in that version, and
	// managedFields record it in that version; the Go hooks above
	// (Default, Validate, the Prepare functions, Finalize, Deletion,
	// SelectableFields) are written against one type and see objects
	// converted to the storage version, and the field paths of
	// Validate's errors are the storage version's. A version's own
	// KindVersion.SelectableFields read objects in that version.
	Versions []KindVersion
	// Convert converts meta.Unstructured objects between Versions, one
	// object per call (as kube-apiserver sends a conversion webhook one
	// object per ConversionReview, a list's objects too); each object
	// converted for a read is kept for the reads that follow until it
	// changes. Nil changes only their apiVersion, as a
	// CustomResourceDefinition's strategy None.
	Convert ConvertFunc

	// deprecation is the warning of every request to this version.
	deprecation string
	// versionFields is set when SelectableFields are this version's own
	// (KindVersion.SelectableFields), read from objects in this version.
	versionFields bool
}

// DeletionHooks make deletion two-phase for a kind whose objects must be
// emptied by a controller before they go, as Namespaces are: the first
// delete only marks the object (deletionTimestamp set, Mark applied), and
// it is removed once Pending is false and its metadata finalizers are
// gone.
type DeletionHooks struct {
	// Mark changes an object as it is first marked deleted (a
	// Namespace's phase becomes Terminating).
	Mark func(obj meta.Object)
	// Pending reports whether the kind's own finalizers remain (a
	// Namespace's spec.finalizers). While they do, a further delete
	// changes nothing and is answered with the object, as
	// kube-apiserver's namespace store answers it.
	Pending func(obj meta.Object) bool
	// PendingMessage, when set, refuses such a delete instead, with 409
	// Conflict and this message.
	PendingMessage string
}

func (k *Kind) groupVersion() meta.GroupVersion {
	return meta.GroupVersion{Group: k.Group, Version: k.Version}
}

func (k *Kind) gvk() meta.GroupVersionKind {
	return meta.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
}

func (k *Kind) groupResource() meta.GroupResource {
	return meta.GroupResource{Group: k.Group, Resource: k.Resource}
}

// Subresources are the subresources a kind serves besides the object.
type Subresources struct {
	// Status serves /status and splits spec from status: writes to the
	// object keep the stored status and writes to /status keep
	// everything else.
	Status bool
	// Scale serves /scale for autoscalers and kubectl scale.
	Scale *Scale
}

// schemaPlan is what a kind's schema compiles to at registration: the
// defaulting, pruning and validation of the parts of an object that have
// rules. Typed kinds go through the JSON form of the top-level fields
// with rules only (metadata has its own checks); unstructured kinds use
// their content as it is.
type schemaPlan struct {
	root         *schema.Schema
	unstructured bool
	validator    *schema.Validator // unstructured: of the root
	// nameRules is set when an unstructured kind's schema restricts
	// metadata.name or generateName, which validation then checks.
	nameRules bool
	required  *schema.RequiredCheck // typed: when the body must show required fields
	fields    []fieldPlan           // typed: top-level fields with rules
	rules     schema.RuleValidator  // CEL rules, if the schema has any
	// rulesReadManagedFields is set when the rules may read
	// metadata.managedFields (see schema.MetadataNamesOnly).
	rulesReadManagedFields bool
}

// fieldPlan covers one top-level field of a typed kind.
type fieldPlan struct {
	index     int
	name      string
	schema    *schema.Schema
	validator *schema.Validator
	defaults  bool // the subtree has defaults
	// defaulter applies them to the Go value; nil when the schema and
	// type are beyond it, and the JSON form is defaulted instead.
	defaulter *schema.Defaulter
	// formDefaults applies them to the field's JSON form when it holds
	// no null; nil when the subtree has none.
	formDefaults *schema.FormDefaulter
	// omitted is the field's omitzero test (see schema.OmitsZero), nil
	// without the option: a value it calls zero is absent from the
	// object's JSON, so neither defaulted nor validated.
	omitted func(reflect.Value) bool
}

// compileSchema builds the kind's schema plan; engine compiles its
// rules.
func compileSchema(k *Kind, engine schema.RuleEngine) (*schemaPlan, error) {
	p := &schemaPlan{root: k.Schema}
	if err := p.compileRules(engine); err != nil {
		return nil, err
	}
	sample := k.New()
	if _, ok := sample.(*meta.Unstructured); ok {
		p.unstructured = true
		v, err := schema.NewValidator(k.Schema)
		if err != nil {
			return nil, err
		}
		p.validator = v
		if m := k.Schema.Lookup("metadata"); m != nil {
			p.nameRules = hasRules(m.Properties["name"]) || hasRules(m.Properties["generateName"])
		}
		return p, nil
	}
	t := reflect.TypeOf(sample)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if err := schema.CheckZeroValues(k.Schema, t); err != nil {
		return nil, err
	}
	p.required = schema.NewRequiredCheck(k.Schema, reflect.TypeOf(sample))
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := jsonName(f)
		if f.Anonymous || !f.IsExported() || name == "-" || name == "metadata" {
			continue
		}
		fs := k.Schema.Properties[name]
		if !hasRules(fs) {
			continue
		}
		v, err := schema.NewValidator(fs)
		if err != nil {
			return nil, err
		}
		fp := fieldPlan{index: i, name: name, schema: fs, validator: v, defaults: hasDefaults(fs), omitted: schema.OmitsZero(f)}
		if fp.defaults {
			fp.formDefaults = schema.NewFormDefaulter(fs)
			d, err := schema.NewDefaulter(fs, f.Type)
			switch {
			case err == nil:
				fp.defaulter = d
			case !errors.Is(err, schema.ErrNotPlannable):
				return nil, err
			}
		}
		p.fields = append(p.fields, fp)
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

// applyDefaults fills in the schema's defaults.
func (p *schemaPlan) applyDefaults(obj meta.Object) error {
	if p == nil {
		return nil
	}
	if p.unstructured {
		p.root.ApplyDefaults(obj.(*meta.Unstructured).Content)
		return nil
	}
	for _, fp := range p.fields {
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
		case fp.defaulter != nil:
			_, err = fp.defaulter.Default(fv)
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
func (fp *fieldPlan) absent(fv reflect.Value) bool {
	return fp.omitted != nil && fp.omitted(fv)
}

// setDefault sets fv, absent, to the field's own default, defaulted in
// turn, when it has one.
func (fp *fieldPlan) setDefault(fv reflect.Value) error {
	if fp.schema.Default == nil {
		return nil
	}
	b, err := json.Marshal(fp.schema.Default)
	if err != nil {
		return err
	}
	x, err := jsonFormOf(b) // a copy: the schema's must not change
	if err != nil {
		return err
	}
	fp.schema.ApplyDefaults(x)
	return setJSON(fv, x)
}

// defaultJSONForm defaults fv through its JSON form, for a field whose
// type the schema's Go plan does not follow.
func (fp *fieldPlan) defaultJSONForm(fv reflect.Value) error {
	x, err := jsonForm(fv)
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

// validate checks obj against the schema. decoded, when not nil, is obj
// decoded from its JSON (as the field manager decodes it): a typed
// object's fields are then validated from it rather than encoded again;
// nullFree says decoded holds no null anywhere.
func (p *schemaPlan) validate(obj meta.Object, decoded map[string]any, nullFree bool) (status.FieldErrors, error) {
	if p == nil {
		return nil, nil
	}
	if p.unstructured {
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
	for _, fp := range p.fields {
		// A field the object's JSON leaves out (empty, omitempty) reads
		// as its own encoding, null or empty, as before.
		x, ok := decoded[fp.name]
		if !ok {
			fv := reflect.ValueOf(obj).Elem().Field(fp.index)
			if fp.absent(fv) {
				continue // an absent object has nothing to check
			}
			var err error
			if x, err = jsonForm(fv); err != nil {
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

// prune drops the fields an unstructured object's schema does not know
// and returns them as the unknown-field errors of field validation.
func (p *schemaPlan) prune(obj meta.Object) []error {
	if p == nil || !p.unstructured {
		return nil
	}
	u := obj.(*meta.Unstructured)
	var out []error
	for _, path := range u.DroppedMetadataFields() {
		out = append(out, fieldvalidation.Unknown(path))
	}
	for _, path := range p.root.Prune(u.Content) {
		out = append(out, fieldvalidation.Unknown(path))
	}
	return out
}

// jsonForm returns the decoded JSON form of a Go value, with integers as
// int64: its JSON read by package patch's decoder, which gives what
// encoding/json with UseNumber and [numbers] give at a fraction of the
// cost. A document that decoder refuses (a number out of float64's range
// in a raw JSON field, which numbers takes as an infinity) takes the
// general path.
func jsonForm(v reflect.Value) (any, error) {
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return nil, err
	}
	if x, err := patch.DecodeValue(b); err == nil {
		return x, nil
	}
	return jsonFormOf(b)
}

// jsonFormOf is the general path of jsonForm: b decoded by encoding/json
// with UseNumber, numbers then converted by [numbers].
func jsonFormOf(b []byte) (any, error) {
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
