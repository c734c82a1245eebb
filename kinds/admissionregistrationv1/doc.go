// Package admissionregistrationv1 serves the kinds of
// admissionregistration.k8s.io/v1 with kapi, as kube-apiserver v1.37
// serves them: MutatingWebhookConfiguration,
// ValidatingWebhookConfiguration, ValidatingAdmissionPolicy (with its
// status subresource), ValidatingAdmissionPolicyBinding,
// MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding, all
// cluster-scoped, in kubectl's category api-extensions.
//
// Each type mirrors its k8s.io/api/admissionregistration/v1 namesake with
// the same JSON names and protobuf field numbers, so kubectl, client-go
// and controller-runtime read and write them unchanged; a golden test in
// the examples module holds the bytes equal.
//
// [Kinds] returns the six registrations for apiserver.Server.Register:
// kube's defaults (failurePolicy Fail, matchPolicy Equivalent, selectors
// that match everything, a 10 second timeout, scope "*", service port
// 443, reinvocationPolicy Never for mutating webhooks), its validation,
// with the same field paths, error types and messages, its warnings and
// its Table columns. What kube relaxes on update for objects stored
// before a rule was added (side effects, review versions, duplicate
// webhook names, selector values, unchanged match conditions) stays
// relaxed.
//
// # CEL
//
// kube-apiserver compiles every CEL expression of these objects when
// they are written. This package does not import cel-go; a host plugs
// the check in with [Options].CheckExpression, which sees each
// expression with the variables it may use ([Expression]). Without it,
// expressions are only required to be there.
//
// Serving these kinds stores configurations; calling the webhooks and
// evaluating the policies they describe is the admission engines' work.
package admissionregistrationv1
