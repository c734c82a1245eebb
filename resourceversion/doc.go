// Package resourceversion turns the read-consistency query parameters of a
// get, list or watch (resourceVersion, resourceVersionMatch, limit,
// continue, sendInitialEvents, allowWatchBookmarks, timeoutSeconds) into one
// typed request per verb, and encodes and decodes continue tokens in the
// format kube-apiserver uses.
//
// The rules are the tables of the Kubernetes API concepts page ("Semantics
// for get and list", "Semantics for watch", "Streaming lists"); where those
// are silent the package does what kube-apiserver does. Every rejection is a
// [*status.Error] carrying the Status kube-apiserver would send:
//
//   - a query parameter that does not parse (limit, timeoutSeconds) is a 400
//     BadRequest whose message is the strconv error, as kube-apiserver's
//     parameter codec reports it;
//   - an invalid combination is a 422 Invalid for kind ListOptions in group
//     meta.k8s.io, listing every problem as a cause, as kube-apiserver's
//     ValidateListOptions does;
//   - a resourceVersion that is not an unsigned integer, a malformed continue
//     token, or a continue token together with a resourceVersion other than
//     "0" is a 400 BadRequest with kube-apiserver's storage-layer message.
//
// Parsing stops at the first failing stage, in kube-apiserver's order:
// parameter decoding, then validation, then the storage-layer checks.
package resourceversion
