// Package admission evaluates the CEL of admission: webhooks'
// matchConditions ([Compiler.CompileConditions]) and
// ValidatingAdmissionPolicies with their bindings ([Validating]),
// MutatingAdmissionPolicies with theirs ([Mutating]), and the check of
// every expression when an admission configuration is written
// ([Compiler.CheckExpression]), in kube-apiserver's environment for
// admission expressions and with its semantics and messages.
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
// Mutations build an Object (Object{spec: Object.spec{...}}, each type
// named by the path of fields that leads to it) that is merged into the
// object as kube-apiserver merges it (typed by the kind's schema,
// structured-merge-diff's merge, atomic fields refused), or a list of
// JSONPatch operations applied as RFC 6902 (jsonpatch.escapeKey escapes
// a key for a path). The mutated object is decoded back into the kind's
// type; policies with reinvocationPolicy IfNeeded run again when a later
// mutation changed the object.
//
// A host builds the plugins before its server and starts them after:
//
//	c, _ := admission.NewCompiler()
//	m, _ := admission.NewMutating(admission.Options{Compiler: c, Authorizer: authz})
//	v, _ := admission.NewValidating(admission.Options{Compiler: c, Authorizer: authz})
//	srv := apiserver.New(apiserver.Options{
//		MutatingAdmission:   []apiserver.AdmissionFunc{m.Mutate},
//		ValidatingAdmission: []apiserver.AdmissionFunc{v.Validate},
//	})
//	for _, k := range admissionregistrationv1.Kinds(admissionregistrationv1.Options{CheckExpression: c.CheckExpression}) {
//		srv.Register(k)
//	}
//	m.Start(srv)
//	v.Start(srv)
package admission
