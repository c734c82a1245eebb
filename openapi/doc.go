// Package openapi builds the OpenAPI v3 documents kube-apiserver serves, so
// that kubectl and client-go read kapi's kinds as they read
// CustomResourceDefinitions.
//
// kube-apiserver serves an index at /openapi/v3 ([Index]) and one document
// per group-version at /openapi/v3/apis/<group>/<version>, or
// /openapi/v3/api/v1 for the core group ([Document]). Clients rely on them:
//
//   - kubectl create and apply, with the default --validate=strict, ask
//     whether the server takes the fieldValidation query parameter. They
//     look for a PATCH operation whose x-kubernetes-group-version-kind
//     object names the kind and for an inline query parameter named
//     fieldValidation among that operation's own parameters.
//   - kubectl explain finds a path of the resource, takes the
//     x-kubernetes-group-version-kind of its operations, then the component
//     schema whose x-kubernetes-group-version-kind list holds the same
//     object, and follows properties, items and $refs (also wrapped in allOf)
//     down the field path.
//   - kubectl apply sends a strategic merge patch only when the PATCH
//     operation accepts application/strategic-merge-patch+json, and then
//     reads x-kubernetes-patch-strategy and x-kubernetes-patch-merge-key from
//     the schemas. By default kinds list only JSON patch, merge patch and
//     apply patch, as CustomResourceDefinitions do.
//
// # Building the documents
//
// Build the documents when kinds are registered, keep the bytes, and serve
// them with their [Hash] as ETag:
//
//	doc, err := openapi.Document("stable.example.com", "v1", []openapi.Kind{{
//		Kind: "Widget", Resource: "widgets", Namespaced: true,
//		Schema: widgetSchema, Subresources: []string{"status", "scale"},
//	}})
//	index, err := openapi.Index(map[string][]byte{"apis/stable.example.com/v1": doc})
//
// Kinds take their model from package schema; every constraint, value
// validation (allOf, anyOf, oneOf, not) and x-kubernetes extension of
// the model is published, an int-or-string node with the anyOf of type
// integer and type string kube-apiserver adds to it. Nodes with a
// [schema.Schema.Name] become shared component schemas referred to by $ref.
package openapi
