package envtest

import (
	"context"
	"fmt"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/apiserver/admission/webhook"
	celadmission "github.com/kapi-dev/kapi/cel/admission"
)

// admissionPlugins call the admission webhooks WebhookInstallOptions
// installs (and any a test creates) and evaluate ValidatingAdmissionPolicies,
// in kube-apiserver's order, as the kube-apiserver of controller-runtime's
// envtest does.
type admissionPlugins struct {
	policies *celadmission.Validating
	webhooks *webhook.Plugin
}

// newAdmission builds the plugins and adds them to opts.
func newAdmission(opts *apiserver.Options) (*admissionPlugins, error) {
	compiler, err := celadmission.NewCompiler()
	if err != nil {
		return nil, err
	}
	policies, err := celadmission.NewValidating(celadmission.Options{Compiler: compiler, Authorizer: opts.Authorizer})
	if err != nil {
		return nil, err
	}
	webhooks := webhook.New(webhook.Options{Conditions: compiler.WebhookConditions(), Authorizer: opts.Authorizer,
		Logf: func(string, ...any) {}})
	opts.MutatingAdmission = append(opts.MutatingAdmission, webhooks.Mutate)
	opts.ValidatingAdmission = append(opts.ValidatingAdmission, policies.Validate, webhooks.Validate)
	return &admissionPlugins{policies: policies, webhooks: webhooks}, nil
}

// start gives the plugins the server's watch caches.
func (a *admissionPlugins) start(api *apiserver.Server) error {
	a.policies.Start(api)
	return a.webhooks.Start(api)
}

// admissionResources are the configurations the plugins read.
var admissionResources = []string{
	"mutatingwebhookconfigurations", "validatingwebhookconfigurations",
	"validatingadmissionpolicies", "validatingadmissionpolicybindings",
}

// syncAdmission waits until the plugins' watch caches hold every
// configuration written so far. The plugins read them through those
// caches, which follow the store a moment behind: without the wait, the
// first write after Start could miss a webhook Start installed
// (controller-runtime's envtest likewise waits for its webhooks).
func syncAdmission(ctx context.Context, api *apiserver.Server) error {
	for _, res := range admissionResources {
		c, ok := api.Cached("admissionregistration.k8s.io", res)
		if !ok {
			continue
		}
		if err := c.Sync(ctx); err != nil {
			return fmt.Errorf("envtest: waiting for %s: %w", res, err)
		}
	}
	return nil
}
