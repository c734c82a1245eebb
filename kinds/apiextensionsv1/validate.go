package apiextensionsv1

import (
	"regexp"
	"strings"

	"github.com/kapi-dev/kapi/status"
)

var (
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	kindName     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)
	versionName  = dnsLabel
)

// validate checks a definition as kube-apiserver does (the subset kapi
// serves); old is nil on create.
func validate(crd, old *CustomResourceDefinition) status.FieldErrors {
	var errs status.FieldErrors
	sp := status.NewPath("spec")
	s := &crd.Spec
	if want := s.Names.Plural + "." + s.Group; crd.Name != want {
		errs = append(errs, status.InvalidValue(status.NewPath("metadata", "name"), crd.Name, `must be spec.names.plural+"."+spec.group`))
	}
	switch {
	case s.Group == "":
		errs = append(errs, status.Required(sp.Child("group"), ""))
	case !dnsSubdomain.MatchString(s.Group):
		errs = append(errs, status.InvalidValue(sp.Child("group"), s.Group, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"))
	case len(strings.Split(s.Group, ".")) < 2:
		errs = append(errs, status.InvalidValue(sp.Child("group"), s.Group, "should be a domain with at least one dot"))
	}
	if s.Scope != NamespaceScoped && s.Scope != ClusterScoped {
		errs = append(errs, status.NotSupported(sp.Child("scope"), s.Scope, []string{ClusterScoped, NamespaceScoped}))
	}
	errs = append(errs, validateNames(&s.Names, sp.Child("names"))...)
	errs = append(errs, validateVersions(s.Versions, sp.Child("versions"))...)
	if s.PreserveUnknownFields {
		errs = append(errs, status.InvalidValue(sp.Child("preserveUnknownFields"), true, "must be false in order to use defaults in the schema"))
	}
	errs = append(errs, validateConversion(s.Conversion, sp.Child("conversion"))...)
	if old != nil {
		errs = append(errs, validateUpdate(crd, old)...)
	}
	return errs
}

func validateNames(n *CustomResourceDefinitionNames, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	label := func(field, v string, required bool) {
		switch {
		case v == "" && required:
			errs = append(errs, status.Required(p.Child(field), ""))
		case v != "" && !dnsLabel.MatchString(v):
			errs = append(errs, status.InvalidValue(p.Child(field), v, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"))
		}
	}
	label("plural", n.Plural, true)
	label("singular", n.Singular, false)
	for i, sn := range n.ShortNames {
		if !dnsLabel.MatchString(sn) {
			errs = append(errs, status.InvalidValue(p.Child("shortNames").Index(i), sn, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"))
		}
	}
	for i, c := range n.Categories {
		if !dnsLabel.MatchString(c) {
			errs = append(errs, status.InvalidValue(p.Child("categories").Index(i), c, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"))
		}
	}
	switch {
	case n.Kind == "":
		errs = append(errs, status.Required(p.Child("kind"), ""))
	case !kindName.MatchString(n.Kind):
		errs = append(errs, status.InvalidValue(p.Child("kind"), n.Kind, "may have mixed case, but should otherwise match: [a-z]([-a-z0-9]*[a-z0-9])?"))
	}
	if n.ListKind != "" && n.ListKind == n.Kind {
		errs = append(errs, status.InvalidValue(p.Child("listKind"), n.ListKind, "kind and listKind may not be the same"))
	}
	return errs
}

func validateVersions(vs []CustomResourceDefinitionVersion, p status.Path) status.FieldErrors {
	var errs status.FieldErrors
	if len(vs) == 0 {
		return status.FieldErrors{status.Required(p, "must have exactly one version marked as storage version")}
	}
	storage, served := 0, 0
	seen := map[string]bool{}
	for i, v := range vs {
		vp := p.Index(i)
		switch {
		case v.Name == "":
			errs = append(errs, status.Required(vp.Child("name"), ""))
		case !versionName.MatchString(v.Name):
			errs = append(errs, status.InvalidValue(vp.Child("name"), v.Name, "a DNS-1035 label must consist of lower case alphanumeric characters or '-'"))
		case seen[v.Name]:
			errs = append(errs, status.Duplicate(vp.Child("name"), v.Name))
		}
		seen[v.Name] = true
		if v.Storage {
			storage++
		}
		if v.Served {
			served++
		}
		if v.DeprecationWarning != nil && !v.Deprecated {
			errs = append(errs, status.ForbiddenField(vp.Child("deprecationWarning"), "can only be set for deprecated versions"))
		}
	}
	if storage != 1 {
		errs = append(errs, status.InvalidValue(p, vs, "must have exactly one version marked as storage version"))
	}
	if served == 0 {
		errs = append(errs, status.InvalidValue(p, vs, "must have at least one version marked as served"))
	}
	return errs
}

func validateConversion(c *CustomResourceConversion, p status.Path) status.FieldErrors {
	if c == nil {
		return nil
	}
	switch c.Strategy {
	case NoneConverter:
		if c.Webhook != nil {
			return status.FieldErrors{status.ForbiddenField(p.Child("webhook"), "should not be set when strategy is not set to Webhook")}
		}
	case WebhookConverter:
		if c.Webhook == nil || c.Webhook.ClientConfig == nil {
			return status.FieldErrors{status.Required(p.Child("webhook").Child("clientConfig"), "required when strategy is set to Webhook")}
		}
		if len(c.Webhook.ConversionReviewVersions) == 0 {
			return status.FieldErrors{status.Required(p.Child("webhook").Child("conversionReviewVersions"), "must contain at least one value")}
		}
		if reviewVersion(c.Webhook.ConversionReviewVersions) == "" {
			return status.FieldErrors{reviewVersionsError(c.Webhook.ConversionReviewVersions)}
		}
	default:
		return status.FieldErrors{status.NotSupported(p.Child("strategy"), c.Strategy, []string{NoneConverter, WebhookConverter})}
	}
	return nil
}

// validateUpdate: the scope stays (the stored versions are checked by
// validateStoredVersions).
func validateUpdate(crd, old *CustomResourceDefinition) status.FieldErrors {
	var errs status.FieldErrors
	if crd.Spec.Scope != old.Spec.Scope && len(old.Status.StoredVersions) > 0 {
		errs = append(errs, status.InvalidValue(status.NewPath("spec", "scope"), crd.Spec.Scope, "field is immutable"))
	}
	return errs
}
