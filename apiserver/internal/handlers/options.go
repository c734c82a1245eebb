package handlers

import (
	"fmt"
	"net/http"
	"unicode"

	"github.com/kapi-dev/kapi/fieldvalidation"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/status"
)

// fieldManagerMaxLength is the longest fieldManager kube-apiserver
// accepts.
const fieldManagerMaxLength = 128

// validateFieldManager checks the fieldManager query parameter as
// kube-apiserver's ValidateFieldManager does.
func validateFieldManager(fieldManager string) status.FieldErrors {
	var errs status.FieldErrors
	p := status.NewPath("fieldManager")
	if len(fieldManager) > fieldManagerMaxLength {
		errs = append(errs, status.TooLong(p, "", fieldManagerMaxLength))
	}
	for i, c := range fieldManager {
		if !unicode.IsPrint(c) {
			errs = append(errs, status.InvalidValue(p, fieldManager, fmt.Sprintf("invalid character %#U (at position %d)", c, i)))
		}
	}
	return errs
}

// optionsInvalid is the 422 for invalid CreateOptions, UpdateOptions or
// PatchOptions.
func optionsInvalid(kind string, errs status.FieldErrors) error {
	return status.Invalid(meta.GroupVersionKind{Group: "meta.k8s.io", Kind: kind}, "", errs)
}

// writeOptions validates the options of a create or update as
// kube-apiserver's ValidateCreateOptions and ValidateUpdateOptions do
// (fieldManager, dryRun, fieldValidation: every problem in one 422) and
// returns the manager the write is recorded under, whether it is a dry
// run, and the field validation directive.
func writeOptions(r *http.Request, optionsKind string) (manager string, dry bool, directive fieldvalidation.Directive, err error) {
	q := r.URL.Query()
	fm := q.Get("fieldManager")
	errs := validateFieldManager(fm)
	errs = append(errs, validateDryRun(q["dryRun"])...)
	directive, verrs := fieldvalidation.Parse(q.Get("fieldValidation"))
	errs = append(errs, verrs...)
	if len(errs) > 0 {
		return "", false, directive, optionsInvalid(optionsKind, errs)
	}
	return patch.ManagerName(fm, r.UserAgent()), len(q["dryRun"]) > 0, directive, nil
}
