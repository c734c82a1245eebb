// Package fieldvalidation implements the fieldValidation query parameter
// of Kubernetes writes: what a server does with the fields of a request
// body that the kind does not declare (unknown fields) or that appear
// twice in one object (duplicate fields).
//
// A server parses the directive with [Parse], decodes the body with
// [DecodeJSON] or [DecodeYAML] (or reports [Unknown] fields it prunes
// against a schema itself), and hands the problems to [Directive.Check],
// which answers as kube-apiserver does:
//
//   - Ignore: nothing; unknown fields are dropped silently.
//   - Warn (the default): one warning per problem, for the Warning header,
//     such as `unknown field "spec.colour"`.
//   - Strict: a 400 BadRequest Status, `strict decoding error: unknown
//     field "spec.colour", duplicate field "metadata.name"`.
//
// Problems name the field by its full path from the root of the body,
// list indexes and map keys included: `unknown field "spec.ports[1].colour"`,
// `duplicate field "spec"`. A type that keeps part of itself as raw JSON
// finds the problems there through a typed shadow ([Shadowed]).
package fieldvalidation
