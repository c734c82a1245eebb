// Package admission evaluates the CEL of admission: webhooks'
// matchConditions ([Compiler.CompileConditions]) and
// ValidatingAdmissionPolicies with their bindings ([Validating]), in
// kube-apiserver's environment for admission expressions and with its
// semantics and messages.
//
// Expressions see object, oldObject (JSON forms, null when absent),
// request (the AdmissionRequest without uid and objects), params
// (policies with a paramKind), namespaceObject, variables (a policy's
// variables, each evaluated once, when first read) and the authorizer
// library (authorizer, authorizer.requestResource), besides the
// libraries of package cel. Each evaluation is limited to kube's
// per-call cost; a binding's validations share kube's runtime budget,
// matchConditions a smaller one of their own.
//
// A host builds the plugin before its server and starts it after:
//
//	p, _ := admission.NewValidating(admission.Options{Authorizer: authz})
//	srv := apiserver.New(apiserver.Options{ValidatingAdmission: []apiserver.AdmissionFunc{p.Validate}})
//	// register kinds, including the admissionregistration.k8s.io ones
//	p.Start(srv)
//
// MutatingAdmissionPolicy is not evaluated yet.
package admission
