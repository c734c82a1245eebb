package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/apiserver/admission/webhook"
	"github.com/kapi-dev/kapi/auth"
	celadmission "github.com/kapi-dev/kapi/cel/admission"
	"github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	kapiprom "github.com/kapi-dev/kapi/metrics/prometheus"
)

// The admission plugins of the example server, by kube-apiserver's names.
const (
	pluginMutatingPolicy    = "MutatingAdmissionPolicy"
	pluginMutatingWebhook   = "MutatingAdmissionWebhook"
	pluginValidatingPolicy  = "ValidatingAdmissionPolicy"
	pluginValidatingWebhook = "ValidatingAdmissionWebhook"
)

// admissionPluginNames are the plugins --disable-admission-plugins takes.
func admissionPluginNames() []string {
	return []string{pluginMutatingPolicy, pluginMutatingWebhook, pluginValidatingPolicy, pluginValidatingWebhook}
}

// admissionPlugins are the admission kube-apiserver runs on every write
// beyond the host's own functions, in kube-apiserver's order:
// MutatingAdmissionPolicy then MutatingAdmissionWebhook among the
// mutating ones, ValidatingAdmissionPolicy then ValidatingAdmissionWebhook
// among the validating ones, all configured by the objects of
// admissionregistration.k8s.io, whose CEL the compiler checks when they
// are written.
type admissionPlugins struct {
	compiler *celadmission.Compiler
	mutating *celadmission.Mutating
	policies *celadmission.Validating
	webhooks *webhook.Plugin
}

// admissionConfig is what the plugins are built with: the authorizer of
// policies' and match conditions' authorizer checks (nil allows every
// check), the webhook metrics, the log and the plugins turned off.
type admissionConfig struct {
	authz    auth.Authorizer
	metrics  *kapiprom.WebhookMetrics
	logger   *slog.Logger
	disabled []string
}

// newAdmission builds the plugins cfg leaves on and adds them to opts.
func newAdmission(opts *apiserver.Options, cfg admissionConfig) (*admissionPlugins, error) {
	var errs []error
	for _, name := range cfg.disabled {
		if !slices.Contains(admissionPluginNames(), name) {
			errs = append(errs, fmt.Errorf("disable-admission-plugins plugin %q is unknown", name))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	on := func(name string) bool { return !slices.Contains(cfg.disabled, name) }
	compiler, err := celadmission.NewCompiler()
	if err != nil {
		return nil, err
	}
	a := &admissionPlugins{compiler: compiler}
	if on(pluginMutatingPolicy) {
		if a.mutating, err = celadmission.NewMutating(celadmission.Options{Compiler: compiler, Authorizer: cfg.authz}); err != nil {
			return nil, err
		}
		opts.MutatingAdmission = append(opts.MutatingAdmission, a.mutating.Mutate)
	}
	if on(pluginMutatingWebhook) || on(pluginValidatingWebhook) {
		wo := webhook.Options{Conditions: compiler.WebhookConditions(), Authorizer: cfg.authz}
		if cfg.metrics != nil {
			wo.Observer = cfg.metrics
		}
		if cfg.logger != nil {
			logger := cfg.logger
			wo.Logf = func(format string, args ...any) { logger.Warn(fmt.Sprintf(format, args...)) }
		}
		a.webhooks = webhook.New(wo)
	}
	if on(pluginMutatingWebhook) {
		opts.MutatingAdmission = append(opts.MutatingAdmission, a.webhooks.Mutate)
	}
	if on(pluginValidatingPolicy) {
		if a.policies, err = celadmission.NewValidating(celadmission.Options{Compiler: compiler, Authorizer: cfg.authz}); err != nil {
			return nil, err
		}
		opts.ValidatingAdmission = append(opts.ValidatingAdmission, a.policies.Validate)
	}
	if on(pluginValidatingWebhook) {
		opts.ValidatingAdmission = append(opts.ValidatingAdmission, a.webhooks.Validate)
	}
	return a, nil
}

// start gives the plugins the server's watch caches, once the
// admissionregistration kinds are registered.
func (a *admissionPlugins) start(srv *apiserver.Server) error {
	if a.mutating != nil {
		a.mutating.Start(srv)
	}
	if a.policies != nil {
		a.policies.Start(srv)
	}
	if a.webhooks != nil {
		return a.webhooks.Start(srv)
	}
	return nil
}

// kindOptions are the options of the admissionregistration kinds: their
// CEL expressions are compiled when written, as kube-apiserver does.
func (a *admissionPlugins) kindOptions() admissionregistrationv1.Options {
	return admissionregistrationv1.Options{CheckExpression: a.compiler.CheckExpression}
}

// typeCheckingInterval is how often the policies' type checking is
// brought up to date.
const typeCheckingInterval = time.Second

// runTypeChecking fills in the status.typeChecking of
// ValidatingAdmissionPolicies until ctx is done.
func (a *admissionPlugins) runTypeChecking(ctx context.Context, srv *apiserver.Server, logger *slog.Logger) {
	a.compiler.RunTypeChecking(ctx, srv, typeCheckingInterval, func(err error) {
		if logger != nil {
			logger.Warn("type checking admission policies", "err", err)
		}
	})
}
