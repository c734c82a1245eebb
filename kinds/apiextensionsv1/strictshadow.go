package apiextensionsv1

import "github.com/kapi-dev/kapi/fieldvalidation"

// A definition keeps each schema as JSON, which strict decoding cannot
// look into: its shadow reads the same JSON with the schemas typed, so
// that unknown and duplicate fields in a schema are found, with their
// paths and in the order kube-apiserver's decoder finds them. As in kube,
// what is below items, additionalProperties and dependencies (decoded
// leniently there too) and JSON values are not looked into.

var _ fieldvalidation.Shadowed = (*CustomResourceDefinition)(nil)

// StrictShadow returns the typed shadow a definition's JSON is checked
// against.
func (*CustomResourceDefinition) StrictShadow() any { return &definitionShadow{} }

// The shadow types take every field of the definition's types but those
// they redeclare, which hide the embedded ones as encoding/json resolves
// names.
type definitionShadow struct {
	CustomResourceDefinition
	Spec specShadow `json:"spec"`
}

type specShadow struct {
	CustomResourceDefinitionSpec
	Versions []versionShadow `json:"versions"`
}

type versionShadow struct {
	CustomResourceDefinitionVersion
	Schema *validationShadow `json:"schema,omitempty"`
}

type validationShadow struct {
	OpenAPIV3Schema *schemaProps `json:"openAPIV3Schema,omitempty"`
}
