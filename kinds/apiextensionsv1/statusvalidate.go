package apiextensionsv1

import (
	"regexp"
	"strings"

	"github.com/kapi-dev/kapi/status"
)

// A write to a definition's /status is checked as kube-apiserver checks
// it: only the form of status.acceptedNames, with kube's DNS-1035
// messages. Its storedVersions are not checked there (see
// storedversions.go), nor is the spec, which such a write cannot change.

var dns1035Label = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

const dns1035Message = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, " +
	"and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"

// dns1035Problems is what is wrong with v as a DNS-1035 label, each
// problem in kube's words.
func dns1035Problems(v string) []string {
	var out []string
	if len(v) > 63 {
		out = append(out, "must be no more than 63 characters")
	}
	if !dns1035Label.MatchString(v) {
		out = append(out, dns1035Message)
	}
	return out
}

// validateStatus checks a write to a definition's /status.
func validateStatus(crd *CustomResourceDefinition) status.FieldErrors {
	n := &crd.Status.AcceptedNames
	p := status.NewPath("status", "acceptedNames")
	var errs status.FieldErrors
	label := func(fp status.Path, v, value, prefix string) {
		if probs := dns1035Problems(v); len(probs) > 0 {
			errs = append(errs, status.InvalidValue(fp, value, prefix+strings.Join(probs, ",")))
		}
	}
	const mixedCase = "may have mixed case, but should otherwise match: "
	if n.Plural != "" {
		label(p.Child("plural"), n.Plural, n.Plural, "")
	}
	if n.Singular != "" {
		label(p.Child("singular"), n.Singular, n.Singular, "")
	}
	if n.Kind != "" {
		label(p.Child("kind"), strings.ToLower(n.Kind), n.Kind, mixedCase)
	}
	if n.ListKind != "" {
		label(p.Child("listKind"), strings.ToLower(n.ListKind), n.ListKind, mixedCase)
	}
	for i, sn := range n.ShortNames {
		label(p.Child("shortNames").Index(i), sn, sn, "")
	}
	if n.Kind != "" && n.Kind == n.ListKind {
		errs = append(errs, status.InvalidValue(p.Child("listKind"), n.ListKind, "kind and listKind may not be the same"))
	}
	for i, c := range n.Categories {
		label(p.Child("categories").Index(i), c, c, "")
	}
	return errs
}
