// Package kinds declares what a host registers with an apiserver.Server:
// a [Kind] — one Go type, or a kind defined at run time — with its names,
// scope, schema, subresources, Table columns, versions and the hooks the
// write pipeline runs (defaulting, validation, admission, preparation,
// canonical form, two-phase deletion).
//
// A Kind is a declaration only; the server compiles it at registration
// and checks it then. Package apiserver gives every type here its own
// name as well (apiserver.Kind is kinds.Kind), so hosts need not import
// this package.
package kinds
