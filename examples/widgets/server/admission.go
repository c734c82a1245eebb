package server

import (
	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/auth"
	celadmission "github.com/kapi-dev/kapi/cel/admission"
)

// admissionPlugins are the admission kube-apiserver runs on every write
// beyond the host's own functions, in kube's order: the
// ValidatingAdmissionPolicies of admissionregistration.k8s.io, evaluated
// as the objects of those kinds say.
type admissionPlugins struct {
	policies *celadmission.Validating
}

// newAdmission builds the plugins and adds them to opts; authz answers
// the policies' authorizer checks (nil allows every check).
func newAdmission(opts *apiserver.Options, authz auth.Authorizer) (*admissionPlugins, error) {
	compiler, err := celadmission.NewCompiler()
	if err != nil {
		return nil, err
	}
	policies, err := celadmission.NewValidating(celadmission.Options{Compiler: compiler, Authorizer: authz})
	if err != nil {
		return nil, err
	}
	opts.ValidatingAdmission = append(opts.ValidatingAdmission, policies.Validate)
	return &admissionPlugins{policies: policies}, nil
}

// start gives the plugins the server's watch caches, once the
// admissionregistration kinds are registered.
func (a *admissionPlugins) start(srv *apiserver.Server) {
	a.policies.Start(srv)
}
