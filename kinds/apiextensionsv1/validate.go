package apiextensionsv1

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// validate checks a definition as kube-apiserver checks it, in its order
// and with its words, on its internal form (see internalform.go); old is
// nil on create. rules, when not nil, compiles the rules of each schema
// that is otherwise sound.
func validate(crd, old *CustomResourceDefinition, rules schema.RuleEngine) status.FieldErrors {
	c := &checker{crd: crd, shared: sharedPartsOf(crd.Spec.Versions), rules: rules, conversion: conversionOptionsFor(old)}
	var errs status.FieldErrors
	if old == nil {
		errs = c.metadataErrors() // an update cannot change the name
	}
	errs = append(errs, c.specErrors()...)
	if old != nil {
		errs = append(errs, validateUpdate(crd, old)...)
	}
	errs = append(errs, approvalErrors(crd, old)...)
	if crd.Spec.PreserveUnknownFields {
		errs = append(errs, status.InvalidValue(status.NewPath("spec", "preserveUnknownFields"), true,
			"cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
	}
	return errs
}

// checker holds what the checks of one definition share.
type checker struct {
	crd        *CustomResourceDefinition
	shared     sharedParts
	rules      schema.RuleEngine
	conversion conversionOptions
}

// metadataErrors: the name (and a generateName) must be
// <plural>.<group>, itself a DNS subdomain.
func (c *checker) metadataErrors() status.FieldErrors {
	var errs status.FieldErrors
	m, p := &c.crd.ObjectMeta, status.NewPath("metadata")
	if m.GenerateName != "" {
		for _, msg := range c.nameErrors(m.GenerateName, true) {
			errs = append(errs, status.InvalidValue(p.Child("generateName"), m.GenerateName, msg))
		}
	}
	if m.Name != "" {
		for _, msg := range c.nameErrors(m.Name, false) {
			errs = append(errs, status.InvalidValue(p.Child("name"), m.Name, msg))
		}
	}
	return errs
}

func (c *checker) nameErrors(name string, prefix bool) []string {
	msgs := nameIsDNSSubdomainErrors(name, prefix)
	if s := &c.crd.Spec; name != s.Names.Plural+"."+s.Group {
		msgs = append(msgs, `must be spec.names.plural+"."+spec.group`)
	}
	return msgs
}

// specErrors checks spec in kube's order: group, scope, schemas present,
// each version (its name, then what it holds alone), the versions
// together, names, what the versions share, conversion.
func (c *checker) specErrors() status.FieldErrors {
	s, sp := &c.crd.Spec, status.NewPath("spec")
	errs := groupErrors(s.Group, sp.Child("group"))
	switch s.Scope {
	case "":
		errs = append(errs, status.Required(sp.Child("scope"), ""))
	case ClusterScoped, NamespaceScoped:
	default:
		errs = append(errs, status.NotSupported(sp.Child("scope"), s.Scope, []string{ClusterScoped, NamespaceScoped}))
	}
	errs = append(errs, missingSchemas(c.crd)...)
	if s.PreserveUnknownFields && c.hasDefaults() {
		errs = append(errs, status.InvalidValue(sp.Child("preserveUnknownFields"), true, "must be false in order to use defaults in the schema"))
	}
	for i := range s.Versions {
		errs = append(errs, c.versionErrors(i)...)
	}
	errs = append(errs, c.versionsErrors()...)
	errs = append(errs, namesErrors(&s.Names, sp.Child("names"))...)
	errs = append(errs, c.sharedErrors()...)
	if cv := s.Conversion; cv != nil && cv.Strategy != NoneConverter && s.PreserveUnknownFields {
		errs = append(errs, status.InvalidValue(sp.Child("conversion").Child("strategy"), cv.Strategy, "must be None if spec.preserveUnknownFields is true"))
	}
	return append(errs, conversionErrors(s.Conversion, sp.Child("conversion"), c.conversion)...)
}

func groupErrors(group string, p status.Path) status.FieldErrors {
	switch msgs := dns1123SubdomainErrors(group); {
	case group == "":
		return status.FieldErrors{status.Required(p, "")}
	case len(msgs) > 0:
		return status.FieldErrors{status.InvalidValue(p, group, strings.Join(msgs, ","))}
	case !strings.Contains(group, "."):
		return status.FieldErrors{status.InvalidValue(p, group, "should be a domain with at least one dot")}
	}
	return nil
}

// versionErrors checks version i: its name, its deprecation warning, and
// the parts it does not share with the other versions.
func (c *checker) versionErrors(i int) status.FieldErrors {
	v := &c.crd.Spec.Versions[i]
	vp := status.NewPath("spec", "versions").Index(i)
	var errs status.FieldErrors
	if msgs := dns1035LabelErrors(v.Name); len(msgs) > 0 {
		errs = append(errs, status.InvalidValue(vp.Child("name"), v.Name, strings.Join(msgs, ",")))
	}
	for _, msg := range deprecationWarningErrors(v.Deprecated, v.DeprecationWarning) {
		errs = append(errs, status.InvalidValue(vp.Child("deprecationWarning"), *v.DeprecationWarning, msg))
	}
	if !c.shared.schema && v.Schema != nil {
		errs = append(errs, c.schemaErrors(i, vp.Child("schema"), c.statusEnabled(i))...)
	}
	if !c.shared.subresources {
		errs = append(errs, subresourceErrors(v.Subresources, vp.Child("subresources"))...)
	}
	if !c.shared.columns {
		for j := range v.AdditionalPrinterColumns {
			errs = append(errs, columnErrors(&v.AdditionalPrinterColumns[j], vp.Child("additionalPrinterColumns").Index(j))...)
		}
	}
	if !c.shared.selectableFields && len(v.SelectableFields) > 0 {
		fp := vp.Child("selectableFields")
		if c.shared.schema || !hasSchema(v) {
			// As kube: the version's own schema is gone from its internal
			// form when every version shares it.
			errs = append(errs, status.InvalidValue(fp, "", "may only be set when `version.schema.openAPIV3Schema` is not included"))
		} else {
			errs = append(errs, selectableFieldErrors(v.SelectableFields, v.Schema.OpenAPIV3Schema, fp)...)
		}
	}
	return errs
}

// deprecationWarningErrors: only a deprecated version has one, of at
// most 256 printable characters.
func deprecationWarningErrors(deprecated bool, w *string) []string {
	switch {
	case w == nil:
		return nil
	case !deprecated:
		return []string{"can only be set for deprecated versions"}
	}
	var msgs []string
	if len(*w) > 256 {
		msgs = append(msgs, "must be <= 256 characters long")
	}
	if *w == "" {
		msgs = append(msgs, "must not be an empty string")
	}
	return append(msgs, unprintable(*w)...)
}

// versionsErrors checks the versions together: names unique, one
// storage version, and the first version's name as kube's spec.version.
func (c *checker) versionsErrors() status.FieldErrors {
	vs := c.crd.Spec.Versions
	p := status.NewPath("spec", "versions")
	seen, unique, storage := map[string]bool{}, true, 0
	for _, v := range vs {
		unique = unique && !seen[v.Name]
		seen[v.Name] = true
		if v.Storage {
			storage++
		}
	}
	var errs status.FieldErrors
	shown := internalVersions{versions: vs, shared: c.shared}
	if !unique {
		errs = append(errs, status.InvalidValue(p, shown, "must contain unique version names"))
	}
	if storage != 1 {
		errs = append(errs, status.InvalidValue(p, shown, "must have exactly one version marked as storage version"))
	}
	if len(vs) > 0 && vs[0].Name != "" {
		if msgs := dns1035LabelErrors(vs[0].Name); len(msgs) > 0 {
			errs = append(errs, status.InvalidValue(status.NewPath("spec", "version"), vs[0].Name, strings.Join(msgs, ",")))
		}
	}
	return errs
}

// namesErrors checks spec.names: plural, singular, kind and listKind
// given (singular and listKind are defaulted from kind), then each
// name's form.
func namesErrors(n *CustomResourceDefinitionNames, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	for _, f := range []struct{ name, v string }{{"plural", n.Plural}, {"singular", n.Singular}, {"kind", n.Kind}, {"listKind", n.ListKind}} {
		if f.v == "" {
			errs = append(errs, status.Required(p.Child(f.name), ""))
		}
	}
	label := func(fp status.Path, v, prefix string) {
		if msgs := dns1035LabelErrors(v); len(msgs) > 0 {
			errs = append(errs, status.InvalidValue(fp, v, prefix+strings.Join(msgs, ",")))
		}
	}
	mixedCase := func(fp status.Path, v string) {
		if msgs := dns1035LabelErrors(strings.ToLower(v)); len(msgs) > 0 {
			errs = append(errs, status.InvalidValue(fp, v, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
		}
	}
	if n.Plural != "" {
		label(p.Child("plural"), n.Plural, "")
	}
	if n.Singular != "" {
		label(p.Child("singular"), n.Singular, "")
	}
	if n.Kind != "" {
		mixedCase(p.Child("kind"), n.Kind)
	}
	if n.ListKind != "" {
		mixedCase(p.Child("listKind"), n.ListKind)
	}
	for i, sn := range n.ShortNames {
		label(p.Child("shortNames").Index(i), sn, "")
	}
	if n.Kind != "" && n.Kind == n.ListKind {
		errs = append(errs, status.InvalidValue(p.Child("listKind"), n.ListKind, "kind and listKind may not be the same"))
	}
	for i, cat := range n.Categories {
		label(p.Child("categories").Index(i), cat, "")
	}
	return errs
}

// sharedErrors checks what every version shares, as kube's internal form
// holds it in spec: the schema, the subresources, the printer columns,
// the selectable fields.
func (c *checker) sharedErrors() status.FieldErrors {
	vs := c.crd.Spec.Versions
	if len(vs) == 0 {
		return nil
	}
	first, sp := &vs[0], status.NewPath("spec")
	var errs status.FieldErrors
	if c.shared.schema && first.Schema != nil {
		errs = append(errs, c.schemaErrors(0, sp.Child("validation"), c.anyStatusEnabled())...)
	}
	if c.shared.subresources {
		errs = append(errs, subresourceErrors(first.Subresources, sp.Child("subresources"))...)
	}
	if c.shared.columns {
		for j := range first.AdditionalPrinterColumns {
			errs = append(errs, columnErrors(&first.AdditionalPrinterColumns[j], sp.Child("additionalPrinterColumns").Index(j))...)
		}
	}
	if c.shared.selectableFields && len(first.SelectableFields) > 0 {
		fp := sp.Child("selectableFields")
		if !c.shared.schema || first.Schema == nil {
			errs = append(errs, status.InvalidValue(fp, "", "may only be set when validations.schema is included"))
		} else {
			errs = append(errs, selectableFieldErrors(first.SelectableFields, first.Schema.OpenAPIV3Schema, fp)...)
		}
	}
	return errs
}

// statusEnabled reports whether version i serves /status.
func (c *checker) statusEnabled(i int) bool {
	sr := c.crd.Spec.Versions[i].Subresources
	return sr != nil && sr.Status != nil
}

// anyStatusEnabled reports whether any version serves /status.
func (c *checker) anyStatusEnabled() bool {
	for i := range c.crd.Spec.Versions {
		if c.statusEnabled(i) {
			return true
		}
	}
	return false
}

// validateUpdate: the group and plural never change (they make the
// name), the scope and kind not once the definition is established (the
// stored versions are checked by validateStoredVersions).
func validateUpdate(crd, old *CustomResourceDefinition) status.FieldErrors {
	var errs status.FieldErrors
	immutable := func(p status.Path, v, was string) {
		if v != was {
			errs = append(errs, status.InvalidValue(p, v, "field is immutable"))
		}
	}
	sp := status.NewPath("spec")
	if old.IsEstablished() {
		immutable(sp.Child("scope"), crd.Spec.Scope, old.Spec.Scope)
		immutable(sp.Child("names").Child("kind"), crd.Spec.Names.Kind, old.Spec.Names.Kind)
	}
	immutable(sp.Child("group"), crd.Spec.Group, old.Spec.Group)
	immutable(sp.Child("names").Child("plural"), crd.Spec.Names.Plural, old.Spec.Names.Plural)
	return errs
}

// unprintable says where a deprecation warning holds a character it may
// not: one not printable or a control character, or bytes that are not
// UTF-8.
func unprintable(w string) []string {
	var msgs []string
	for i, r := range w {
		if !unicode.IsPrint(r) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; non-printable character found at index %d", i))
			break
		}
		if unicode.IsControl(r) {
			msgs = append(msgs, fmt.Sprintf("must only contain printable UTF-8 characters; control character found at index %d", i))
			break
		}
	}
	if !utf8.ValidString(w) {
		msgs = append(msgs, "must only contain printable UTF-8 characters")
	}
	return msgs
}
