// Package patch applies the four kinds of PATCH kube-apiserver accepts and
// keeps metadata.managedFields the way kube-apiserver's field manager does:
//
//   - application/json-patch+json: [JSONPatch], RFC 6902;
//   - application/merge-patch+json: [MergePatch], RFC 7386;
//   - application/strategic-merge-patch+json: [StrategicMergePatch], driven
//     by the x-kubernetes-patch-strategy and x-kubernetes-patch-merge-key
//     of the kind's [schema.Schema];
//   - application/apply-patch+yaml: [FieldManager.Apply], server-side apply
//     with sigs.k8s.io/structured-merge-diff.
//
// Every other write (create, update, the three patches) goes through
// [FieldManager.Update], which records its manager's ownership.
//
// # Documents
//
// Objects travel as JSON bytes: the apiserver holds the stored object
// encoded and the request body as it came, and decodes every result into
// the kind's type anyway (with field validation), so bytes in and bytes out
// cost one decode and one encode per request and keep the package free of
// the apiserver's types. Inside, documents are decoded to map[string]any
// with int64 and float64 numbers, as meta.Unstructured holds them.
// [StrategicMergeMap] takes decoded maps for callers that have them.
//
// # Errors
//
// Errors carry a [status.Error] with the code, reason and message
// kube-apiserver answers with for the same request (pkg/endpoints/handlers/
// patch.go and k8s.io/apimachinery's managedfields): 400 for malformed
// patches, 413 for JSON patches over [MaxJSONPatchOperations], 422 Invalid
// for patches that do not apply, 409 Conflict naming each field and manager
// for apply conflicts, 415 for strategic merge patches of kinds without
// them, and a reason-less 500 where kube also fails internally. Use
// status.FromError to turn them into the response body; errors.Is reaches
// the underlying cause.
//
// # Managers
//
// [ManagerName] derives the manager of a write from the fieldManager query
// parameter or the User-Agent, as kube-apiserver does. Apply entries are
// kept per manager and subresource, Update entries per manager, apiVersion
// and subresource; entries are sorted as kube sorts them, times recorded to
// the second, and FieldsV1 encoded as kube encodes it:
//
//	{"f:spec":{"f:replicas":{},"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:port":{}}},"f:tags":{"v:\"a\"":{}}}}
//
// An apply that conflicts fails with a 409 whose message and causes name
// each field and its manager:
//
//	Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using stable.example.com/v1: .spec.replicas
//
// The field manager records most writes without structured-merge-diff's
// full comparison of the two objects: a create's set is read off the new
// object, an update that changes only fields its manager owns leaves the
// entries as they are, and an apply of the fields its manager applied
// last time, to fields the object has and nobody else owns, replaces
// their values. Each shortcut gives up on anything else, and tests
// compare it with the general path over random writes.
//
// Build one [Patcher] (or [FieldManager]) per kind and version when the
// kind is registered; both are safe for concurrent use.
package patch
