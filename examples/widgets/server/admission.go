package server

import (
	"fmt"
	"log/slog"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/apiserver/admission/webhook"
	"github.com/kapi-dev/kapi/auth"
	celadmission "github.com/kapi-dev/kapi/cel/admission"
	kapiprom "github.com/kapi-dev/kapi/metrics/prometheus"
)

// admissionPlugins are the admission kube-apiserver runs on every write
// beyond the host's own functions, in kube-apiserver's order:
// MutatingAdmissionWebhook among the mutating ones, then
// ValidatingAdmissionPolicy and ValidatingAdmissionWebhook among the
// validating ones, all configured by the objects of
// admissionregistration.k8s.io, whose expressions they check on write.
type admissionPlugins struct {
	compiler *celadmission.Compiler
	policies *celadmission.Validating
	webhooks *webhook.Plugin
}

// newAdmission builds the plugins and adds them to opts; authz answers
// the authorizer checks of policies and match conditions (nil allows
// every check).
func newAdmission(opts *apiserver.Options, authz auth.Authorizer, metrics *kapiprom.WebhookMetrics, logger *slog.Logger) (*admissionPlugins, error) {
	compiler, err := celadmission.NewCompiler()
	if err != nil {
		return nil, err
	}
	policies, err := celadmission.NewValidating(celadmission.Options{Compiler: compiler, Authorizer: authz})
	if err != nil {
		return nil, err
	}
	wo := webhook.Options{Conditions: compiler.WebhookConditions(), Authorizer: authz}
	if metrics != nil {
		wo.Observer = metrics
	}
	if logger != nil {
		wo.Logf = func(format string, args ...any) { logger.Warn(fmt.Sprintf(format, args...)) }
	}
	webhooks := webhook.New(wo)
	opts.MutatingAdmission = append(opts.MutatingAdmission, webhooks.Mutate)
	opts.ValidatingAdmission = append(opts.ValidatingAdmission, policies.Validate, webhooks.Validate)
	return &admissionPlugins{compiler: compiler, policies: policies, webhooks: webhooks}, nil
}

// start gives the plugins the server's watch caches, once the
// admissionregistration kinds are registered.
func (a *admissionPlugins) start(srv *apiserver.Server) error {
	a.policies.Start(srv)
	return a.webhooks.Start(srv)
}
