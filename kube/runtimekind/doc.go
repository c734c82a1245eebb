// Package runtimekind registers Kubernetes API types as kapi kinds: the
// structs controller authors write for apimachinery (metav1.TypeMeta and
// metav1.ObjectMeta embedded, a generated DeepCopy, kubebuilder markers,
// a SchemeBuilder), so that one Go package both defines the kind a kapi
// server serves and is the type of the controllers' typed clients.
//
// [Kind] finds the kind's group, version and kind in the scheme the
// package's AddToScheme filled, and takes the rest from one of two
// places:
//
//   - the CustomResourceDefinition generated for the type
//     (controller-gen's output, Options.CRD): names, scope, the
//     openAPIV3Schema with every kubebuilder validation marker (CEL
//     rules too, given apiserver.Options.RuleEngine), subresources,
//     printer columns and selectable fields, made by
//     kinds/apiextensionsv1 as for a definition created in a server;
//   - or the Go type itself, when there is no CRD: the schema by
//     reflection (package schema: json tags, and kapi's schema tags such
//     as minimum or pattern next to them, since comments are not visible
//     at run time), with apimachinery's own types (metav1.Time,
//     metav1.Duration, intstr.IntOrString, resource.Quantity,
//     runtime.RawExtension) given their wire schema, and the names and
//     subresources from Options.
//
// Either way the kind is served as a custom resource is: objects are
// meta.Unstructured in the server, pruned, defaulted and validated from
// the schema, and written to the store as JSON. Reads are served from
// the stored bytes, so no Go value of the type is built on the server's
// read path; the typed struct exists only in the clients, which receive
// exactly the JSON the type marshals to. [FromCRD] does the same for a
// CRD without a Go type.
//
// A kind registered this way serves one version: a CRD that serves
// several is refused here, and is for a server that serves definitions
// (package controllers/crd), which converts between them.
package runtimekind
