package apiextensionsv1

import (
	"bytes"

	"github.com/kapi-dev/kapi/status"
)

// schemaPlaces says where the problems of each version's schema are
// reported. kube-apiserver checks a definition in its internal form,
// which holds a schema every version shares once, at spec.validation:
// such a schema's problems are reported once, under
// spec.validation.openAPIV3Schema; otherwise each version's are under
// spec.versions[i].schema.openAPIV3Schema.
type schemaPlaces struct {
	shared bool
}

// schemaPlacesOf looks at whether every version of crd has the same
// schema (all of them one), as kube's internal form compares them.
func schemaPlacesOf(crd *CustomResourceDefinition) schemaPlaces {
	vs := crd.Spec.Versions
	if len(vs) == 0 || !hasSchema(&vs[0]) {
		return schemaPlaces{}
	}
	return schemaPlaces{shared: sharedPartsOf(vs).schema}
}

// path is where the schema of version i is.
func (s schemaPlaces) path(i int) status.Path {
	if s.shared {
		return status.NewPath("spec", "validation", "openAPIV3Schema")
	}
	return status.NewPath("spec", "versions").Index(i).Child("schema").Child("openAPIV3Schema")
}

// reports says whether the problems of version i's schema are reported:
// a shared schema's are, once, for the first version.
func (s schemaPlaces) reports(i int) bool { return !s.shared || i == 0 }

func hasSchema(v *CustomResourceDefinitionVersion) bool {
	return v.Schema != nil && len(bytes.TrimSpace(v.Schema.OpenAPIV3Schema)) > 0 && string(bytes.TrimSpace(v.Schema.OpenAPIV3Schema)) != "null"
}

// missingSchemas are kube-apiserver's first problems with the schemas: a
// version without one.
func missingSchemas(crd *CustomResourceDefinition) status.FieldErrors {
	var errs status.FieldErrors
	for i := range crd.Spec.Versions {
		if !hasSchema(&crd.Spec.Versions[i]) {
			errs = append(errs, status.Required(status.NewPath("spec", "versions").Index(i).Child("schema").Child("openAPIV3Schema"), ""))
		}
	}
	return errs
}
