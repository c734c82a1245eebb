package envtest

import (
	"context"
	"fmt"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/apiserver/admission/webhook"
	celadmission "github.com/kapi-dev/kapi/cel/admission"
	"github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
)

// admissionPlugins call the admission webhooks WebhookInstallOptions
// installs (and any a test creates) and evaluate admission policies, in
// kube-apiserver's order (MutatingAdmissionPolicy,
// MutatingAdmissionWebhook, ValidatingAdmissionPolicy,
// ValidatingAdmissionWebhook), as the kube-apiserver of
// controller-runtime's envtest does.
type admissionPlugins struct {
	compiler *celadmission.Compiler
	mutating *celadmission.Mutating
	policies *celadmission.Validating
	webhooks *webhook.Plugin
}

// newAdmission builds the plugins and adds them to opts.
func newAdmission(opts *apiserver.Options) (*admissionPlugins, error) {
	compiler, err := celadmission.NewCompiler()
	if err != nil {
		return nil, err
	}
	mutating, err := celadmission.NewMutating(celadmission.Options{Compiler: compiler, Authorizer: opts.Authorizer})
	if err != nil {
		return nil, err
	}
	policies, err := celadmission.NewValidating(celadmission.Options{Compiler: compiler, Authorizer: opts.Authorizer})
	if err != nil {
		return nil, err
	}
	webhooks := webhook.New(webhook.Options{Conditions: compiler.WebhookConditions(), Authorizer: opts.Authorizer,
		Logf: func(string, ...any) {}})
	opts.MutatingAdmission = append(opts.MutatingAdmission, mutating.Mutate, webhooks.Mutate)
	opts.ValidatingAdmission = append(opts.ValidatingAdmission, policies.Validate, webhooks.Validate)
	return &admissionPlugins{compiler: compiler, mutating: mutating, policies: policies, webhooks: webhooks}, nil
}

// kindOptions make the admissionregistration kinds compile their CEL
// when written, as kube-apiserver does.
func (a *admissionPlugins) kindOptions() admissionregistrationv1.Options {
	return admissionregistrationv1.Options{CheckExpression: a.compiler.CheckExpression}
}

// start gives the plugins the server's watch caches.
func (a *admissionPlugins) start(api *apiserver.Server) error {
	a.mutating.Start(api)
	a.policies.Start(api)
	return a.webhooks.Start(api)
}

// admissionResources are the configurations the plugins read.
func admissionResources() []string {
	return []string{
		"mutatingwebhookconfigurations", "validatingwebhookconfigurations",
		"mutatingadmissionpolicies", "mutatingadmissionpolicybindings",
		"validatingadmissionpolicies", "validatingadmissionpolicybindings",
	}
}

// syncAdmission waits until the plugins' watch caches hold every
// configuration written so far. The plugins read them through those
// caches, which follow the store a moment behind: without the wait, the
// first write after Start could miss a webhook Start installed
// (controller-runtime's envtest likewise waits for its webhooks).
func syncAdmission(ctx context.Context, api *apiserver.Server) error {
	for _, res := range admissionResources() {
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
