package apiextensionsv1

import (
	"fmt"
	"slices"

	"github.com/kapi-dev/kapi/status"
)

// status.storedVersions lists every version objects of a definition's
// kind may be stored in, as kube-apiserver keeps it: the storage version
// joins the list when a write to the definition makes it the storage
// version (not later, when a controller gets to it), and a version stays
// listed after it stops being the storage version: objects written
// before remain stored in it until a client migrates them and then
// removes the version from the list through /status. A write to the
// definition keeps the list valid (every listed version still in
// spec.versions, the storage version among them); a write to /status is
// not checked, as kube does not check it, but an empty list there
// becomes the storage version alone.

// addStorageVersion is kube's preparation of a write to a definition: the
// status is the stored one (the server has already copied it), and the
// storage version joins the stored versions when it is new. The list is
// copied, not appended to in place, as it may be the stored object's.
func addStorageVersion(crd *CustomResourceDefinition) {
	v, ok := storageVersion(crd)
	if !ok || slices.Contains(crd.Status.StoredVersions, v) {
		return
	}
	crd.Status.StoredVersions = append(slices.Clip(crd.Status.StoredVersions), v)
}

// defaultStoredVersions gives a definition without stored versions its
// storage version, as kube-apiserver defaults every definition it
// decodes.
func defaultStoredVersions(crd *CustomResourceDefinition) {
	if len(crd.Status.StoredVersions) == 0 {
		if v, ok := storageVersion(crd); ok {
			crd.Status.StoredVersions = []string{v}
		}
	}
}

// storageVersions counts the versions marked as the storage version.
func storageVersions(crd *CustomResourceDefinition) int {
	n := 0
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			n++
		}
	}
	return n
}

// storageVersion is the name of the definition's storage version, even
// an invalid one such as "" (which validation reports on its own, as
// kube does), and whether it has one.
func storageVersion(crd *CustomResourceDefinition) (string, bool) {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name, true
		}
	}
	return "", false
}

// validateStoredVersions checks a definition's stored versions as
// kube-apiserver does on every write but those to /status: there is at
// least one, each storage version is one of them, and each is still in
// spec.versions.
func validateStoredVersions(crd *CustomResourceDefinition) status.FieldErrors {
	p := status.NewPath("status", "storedVersions")
	stored := crd.Status.StoredVersions
	if storageVersions(crd) != 1 {
		// Without exactly one storage version the versions' own error
		// says it all: kube-apiserver answers it alone.
		return nil
	}
	if len(stored) == 0 {
		return status.FieldErrors{status.InvalidValue(p, stored, "must have at least one stored version")}
	}
	var errs status.FieldErrors
	inSpec := map[string]bool{}
	for _, v := range crd.Spec.Versions {
		inSpec[v.Name] = true
		if v.Storage && !slices.Contains(stored, v.Name) {
			errs = append(errs, status.InvalidValue(p, stored, "must have the storage version "+v.Name))
		}
	}
	last := map[string]int{} // a version listed twice is reported at its last place, as kube reports it
	for i, v := range stored {
		last[v] = i
	}
	for i, v := range stored {
		if inSpec[v] || last[v] != i {
			continue
		}
		errs = append(errs, status.InvalidValue(p.Index(i), v, fmt.Sprintf("missing from spec.versions; %[1]s was previously a storage version, "+
			"and must remain in spec.versions until a storage migration ensures no data remains persisted in %[1]s and removes %[1]s from status.storedVersions", v)))
	}
	return errs
}
