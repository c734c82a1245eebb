// Package corev1 serves kinds of the core group (group "", version v1)
// with kapi: Namespace, ConfigMap, Secret, Event and ServiceAccount, so
// that kubectl, client-go's typed clientset and tools built on them (Helm,
// controller-runtime's event recorder) work against a kapi server
// unchanged.
//
// Each type mirrors its k8s.io/api/core/v1 namesake field for field, with
// the same JSON names and protobuf field numbers; metadata is kapi's
// meta.ObjectMeta, which has meta/v1 ObjectMeta's wire form. A kapi kind
// must satisfy meta.Object, which the k8s.io/api structs cannot, hence the
// mirrors; golden tests in the examples module hold the bytes equal.
//
// Each kind has a registration function (NamespaceKind, ConfigMapKind, …)
// that a host passes to apiserver.Server.Register: the validation,
// defaulting, field selectors and Table columns kube-apiserver has for it.
// Serving Namespaces is what makes a server check the namespace of every
// namespaced write; see package controllers/namespace for the admission
// check and the controller that empties a namespace being deleted.
package corev1

import "github.com/kapi-dev/kapi/apiserver"

// Kinds returns the registrations of every kind of this package.
func Kinds() []apiserver.Kind {
	return []apiserver.Kind{NamespaceKind(), ConfigMapKind(), SecretKind(), EventKind(), ServiceAccountKind()}
}
