package api

import (
	_ "embed"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// sprocketSchema is Sprocket's OpenAPI v3 schema document.
//
//go:embed sprocket.yaml
var sprocketSchema []byte

// SprocketKind is the registration of Sprocket, a namespaced kind with no
// Go type: its objects are meta.Unstructured and its structure, defaults
// and constraints come from an OpenAPI schema document, as for a custom
// resource.
func SprocketKind() (apiserver.Kind, error) {
	s, err := schema.FromOpenAPI(sprocketSchema)
	if err != nil {
		return apiserver.Kind{}, err
	}
	return apiserver.Kind{
		Group: Group, Version: Version, Kind: "Sprocket", Resource: "sprockets", Singular: "sprocket",
		Namespaced: true, Subresources: apiserver.Subresources{Status: true}, Schema: s,
		New: func() meta.Object { return &meta.Unstructured{} },
		PrinterColumns: []apiserver.PrinterColumn{
			{Name: "Teeth", Type: "integer", JSONPath: ".spec.teeth", Description: "Number of teeth."},
			{Name: "Finish", Type: "string", JSONPath: ".spec.finish", Description: "Surface finish."},
			{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
		},
	}, nil
}
