package patch

import (
	"fmt"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// versionConverter is the structured-merge-diff converter of a kind
// served in several versions: it converts a typed object, whose
// apiVersion field names its version, to another version with
// Versions.Convert and types it with that version's schema, as
// kube-apiserver's field manager converts through the scheme.
type versionConverter struct {
	version fieldpath.APIVersion // the field manager's own
	types   map[fieldpath.APIVersion]typed.ParseableType
	convert func(obj map[string]any, toAPIVersion string) (map[string]any, error)
}

func newVersionConverter(version fieldpath.APIVersion, own typed.ParseableType, vs *Versions) (*versionConverter, error) {
	c := &versionConverter{version: version, types: map[fieldpath.APIVersion]typed.ParseableType{version: own}, convert: vs.Convert}
	for av, s := range vs.Schemas {
		if fieldpath.APIVersion(av) == version {
			continue
		}
		pt, err := SMDSchema(s)
		if err != nil {
			return nil, fmt.Errorf("patch: schema of %s: %w", av, err)
		}
		c.types[fieldpath.APIVersion(av)] = pt
	}
	return c, nil
}

func (c *versionConverter) Convert(obj *typed.TypedValue, v fieldpath.APIVersion) (*typed.TypedValue, error) {
	u, _ := obj.AsValue().Unstructured().(map[string]any)
	from := c.version
	if av, ok := u["apiVersion"].(string); ok && av != "" {
		from = fieldpath.APIVersion(av)
	}
	if from == v {
		return obj, nil
	}
	pt, ok := c.types[v]
	if !ok || c.convert == nil || u == nil {
		return nil, errMissingVersion
	}
	if _, ok := u["apiVersion"]; !ok {
		withVersion := make(map[string]any, len(u)+1)
		for k, x := range u {
			withVersion[k] = x
		}
		withVersion["apiVersion"] = string(from)
		u = withVersion
	}
	out, err := c.convert(u, string(v))
	if err != nil {
		return nil, fmt.Errorf("converting %s to %s: %w", from, v, err)
	}
	return pt.FromUnstructured(out, typed.AllowDuplicates)
}

func (c *versionConverter) IsMissingVersionError(err error) bool { return err == errMissingVersion }

// otherVersions reports whether entries of other versions are kept and
// any of fields is one.
func (m *FieldManager) otherVersions(fields fieldpath.ManagedFields) bool {
	if !m.multiVersion {
		return false
	}
	for _, vs := range fields {
		if vs.APIVersion() != m.version {
			return true
		}
	}
	return false
}
