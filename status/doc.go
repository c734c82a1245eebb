// Package status is kapi's error type: an [Error] carries the
// [meta.Status] that goes on the wire, with one constructor per reason of
// the Kubernetes API conventions and an IsX predicate for each. Predicates
// use errors.As, so wrapped errors match.
//
// Messages follow kube-apiserver's wording, for example
//
//	widgets.stable.example.com "foo" not found
package status
