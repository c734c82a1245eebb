package apiextensionsv1

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/status"
)

func errorStrings(errs status.FieldErrors) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func versions(storage string, names ...string) []CustomResourceDefinitionVersion {
	out := make([]CustomResourceDefinitionVersion, len(names))
	for i, n := range names {
		out[i] = CustomResourceDefinitionVersion{Name: n, Served: true, Storage: n == storage}
	}
	return out
}

// The stored versions are checked with kube-apiserver's messages (those
// of a reference kube-apiserver v1.37 for the same definitions).
func TestValidateStoredVersions(t *testing.T) {
	missing := func(i, v string) string {
		return "status.storedVersions[" + i + `]: Invalid value: "` + v + `": missing from spec.versions; ` + v +
			" was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in " +
			v + " and removes " + v + " from status.storedVersions"
	}
	tests := []struct {
		name     string
		versions []CustomResourceDefinitionVersion
		stored   []string
		want     []string
	}{
		{"the storage version", versions("v1", "v1", "v2"), []string{"v1"}, nil},
		{"an old storage version still served", versions("v2", "v1", "v2"), []string{"v1", "v2"}, nil},
		{"none", versions("v1", "v1"), nil, []string{"status.storedVersions: Invalid value: null: must have at least one stored version"}},
		{"without the storage version", versions("v2", "v1", "v2"), []string{"v1"},
			[]string{`status.storedVersions: Invalid value: ["v1"]: must have the storage version v2`}},
		// The reference answers a definition with two storage versions
		// with the versions' error alone (testdata/reference-versions.json).
		{"two storage versions", []CustomResourceDefinitionVersion{{Name: "v1", Storage: true}, {Name: "v2", Storage: true}}, []string{"v1"}, nil},
		{"versions no longer in spec", versions("v2", "v2"), []string{"v9", "v2", "v0"}, []string{missing("0", "v9"), missing("2", "v0")}},
		{"listed twice, reported once at its last place", versions("v2", "v2"), []string{"v9", "v2", "v9"}, []string{missing("2", "v9")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			crd := &CustomResourceDefinition{Spec: CustomResourceDefinitionSpec{Versions: tc.versions},
				Status: CustomResourceDefinitionStatus{StoredVersions: tc.stored}}
			if diff := cmp.Diff(tc.want, errorStrings(validateStoredVersions(crd))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A new storage version joins the stored versions without changing the
// list it was given, which may be the stored object's.
func TestAddStorageVersion(t *testing.T) {
	stored := make([]string, 1, 4)
	stored[0] = "v1"
	crd := &CustomResourceDefinition{Spec: CustomResourceDefinitionSpec{Versions: versions("v2", "v1", "v2")},
		Status: CustomResourceDefinitionStatus{StoredVersions: stored}}
	addStorageVersion(crd)
	addStorageVersion(crd)
	if got := strings.Join(crd.Status.StoredVersions, ","); got != "v1,v2" {
		t.Errorf("storedVersions %s", got)
	}
	if stored[:2][1] != "" {
		t.Errorf("the given list was written to: %q", stored[:2])
	}
}

// A write to /status is held to the form of its accepted names only,
// with kube-apiserver's DNS-1035 messages.
func TestValidateStatus(t *testing.T) {
	const label = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, " +
		"and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
	crd := &CustomResourceDefinition{Status: CustomResourceDefinitionStatus{
		StoredVersions: []string{"v9"},
		AcceptedNames: CustomResourceDefinitionNames{Plural: "Bad_Name", Singular: "9x", Kind: "bad kind", ListKind: "bad kind",
			ShortNames: []string{"X"}, Categories: []string{"a b"}},
	}}
	want := []string{
		`status.acceptedNames.plural: Invalid value: "Bad_Name": ` + label,
		`status.acceptedNames.singular: Invalid value: "9x": ` + label,
		`status.acceptedNames.kind: Invalid value: "bad kind": may have mixed case, but should otherwise match: ` + label,
		`status.acceptedNames.listKind: Invalid value: "bad kind": may have mixed case, but should otherwise match: ` + label,
		`status.acceptedNames.shortNames[0]: Invalid value: "X": ` + label,
		`status.acceptedNames.listKind: Invalid value: "bad kind": kind and listKind may not be the same`,
		`status.acceptedNames.categories[0]: Invalid value: "a b": ` + label,
	}
	if diff := cmp.Diff(want, errorStrings(validateStatus(crd))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	crd.Status.AcceptedNames = CustomResourceDefinitionNames{Plural: "crontabs", Kind: "CronTab", ListKind: "CronTabList"}
	if errs := validateStatus(crd); len(errs) > 0 {
		t.Errorf("good names: %v", errs)
	}
}
