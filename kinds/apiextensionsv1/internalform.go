package apiextensionsv1

import (
	"bytes"
	"encoding/json"
	"reflect"

	kjson "sigs.k8s.io/json"
)

// kube-apiserver checks a definition in its internal form, where what
// every version has alike (schema, subresources, printer columns,
// selectable fields) is held once, in spec, and taken out of the
// versions. That decides where a problem is reported: under
// spec.validation, spec.subresources, spec.additionalPrinterColumns or
// spec.selectableFields when every version shares the part, under
// spec.versions[i] otherwise. It also decides what a version is when kube
// prints it in a message: the internal type, whose JSON has Go's field
// names and no omitted fields.

// sharedParts says which parts of the versions kube's internal form holds
// once, in spec.
type sharedParts struct {
	schema, subresources, columns, selectableFields bool
}

// sharedPartsOf compares the versions' parts as kube does (a missing
// part and an empty one alike for lists, not for objects).
func sharedPartsOf(vs []CustomResourceDefinitionVersion) sharedParts {
	if len(vs) == 0 {
		return sharedParts{}
	}
	s := sharedParts{schema: true, subresources: true, columns: true, selectableFields: true}
	first := &vs[0]
	for i := 1; i < len(vs); i++ {
		v := &vs[i]
		s.schema = s.schema && sameValidation(first.Schema, v.Schema)
		s.subresources = s.subresources && reflect.DeepEqual(first.Subresources, v.Subresources)
		s.columns = s.columns && sameList(first.AdditionalPrinterColumns, v.AdditionalPrinterColumns)
		s.selectableFields = s.selectableFields && sameList(first.SelectableFields, v.SelectableFields)
	}
	return s
}

// sameList is kube's semantic equality of lists: nil equals empty.
func sameList[T any](a, b []T) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return reflect.DeepEqual(a, b)
}

// sameValidation compares two versions' schemas as kube compares their
// typed forms.
func sameValidation(a, b *CustomResourceValidation) bool {
	if a == nil || b == nil {
		return a == b
	}
	return bytes.Equal(canonicalSchema(a.OpenAPIV3Schema), canonicalSchema(b.OpenAPIV3Schema))
}

// canonicalSchema is a schema's JSON as kube-apiserver writes it back (see
// [JSONSchemaProps.UnmarshalJSON]); a schema it cannot read stays as it
// is, and an absent one is nil.
func canonicalSchema(raw JSONSchemaProps) []byte {
	if len(raw) == 0 {
		return nil
	}
	s := &schemaProps{}
	if kjson.UnmarshalCaseSensitivePreserveInts(raw, s) != nil {
		return raw
	}
	b, err := json.Marshal(s)
	if err != nil {
		return raw
	}
	return b
}

// internalVersions is what kube prints of spec.versions in a message:
// the internal form's versions.
type internalVersions struct {
	versions []CustomResourceDefinitionVersion
	shared   sharedParts
}

// MarshalJSON writes the versions as kube's internal type encodes.
func (iv internalVersions) MarshalJSON() ([]byte, error) {
	if iv.versions == nil {
		return []byte("null"), nil
	}
	out := make([]internalVersion, len(iv.versions))
	for i := range iv.versions {
		out[i] = toInternalVersion(&iv.versions[i], iv.shared)
	}
	return json.Marshal(out)
}

// internalVersion and the types below mirror kube's internal
// apiextensions types: no JSON tags, so Go's field names, nothing
// omitted.
type internalVersion struct {
	Name                     string
	Served                   bool
	Storage                  bool
	Deprecated               bool
	DeprecationWarning       *string
	Schema                   *internalValidation
	Subresources             *internalSubresources
	AdditionalPrinterColumns []internalColumn
	SelectableFields         []internalSelectableField
}

type internalValidation struct {
	OpenAPIV3Schema *internalSchema
}

type internalSubresources struct {
	Status *struct{}
	Scale  *internalScale
}

type internalScale struct {
	SpecReplicasPath   string
	StatusReplicasPath string
	LabelSelectorPath  *string
}

type internalColumn struct {
	Name        string
	Type        string
	Format      string
	Description string
	Priority    int32
	JSONPath    string
}

type internalSelectableField struct {
	JSONPath string
}

func toInternalVersion(v *CustomResourceDefinitionVersion, shared sharedParts) internalVersion {
	out := internalVersion{Name: v.Name, Served: v.Served, Storage: v.Storage, Deprecated: v.Deprecated,
		DeprecationWarning: v.DeprecationWarning}
	if !shared.schema && v.Schema != nil {
		out.Schema = &internalValidation{OpenAPIV3Schema: internalSchemaOf(v.Schema.OpenAPIV3Schema)}
	}
	if sr := v.Subresources; !shared.subresources && sr != nil {
		out.Subresources = &internalSubresources{}
		if sr.Status != nil {
			out.Subresources.Status = &struct{}{}
		}
		if sc := sr.Scale; sc != nil {
			out.Subresources.Scale = &internalScale{sc.SpecReplicasPath, sc.StatusReplicasPath, sc.LabelSelectorPath}
		}
	}
	if !shared.columns && v.AdditionalPrinterColumns != nil {
		out.AdditionalPrinterColumns = make([]internalColumn, len(v.AdditionalPrinterColumns))
		for i, c := range v.AdditionalPrinterColumns {
			out.AdditionalPrinterColumns[i] = internalColumn(c)
		}
	}
	if !shared.selectableFields && v.SelectableFields != nil {
		out.SelectableFields = make([]internalSelectableField, len(v.SelectableFields))
		for i, f := range v.SelectableFields {
			out.SelectableFields[i] = internalSelectableField(f)
		}
	}
	return out
}
