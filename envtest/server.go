package envtest

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/auth"
	"github.com/kapi-dev/kapi/auth/rbac"
	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/controllers/crd"
	"github.com/kapi-dev/kapi/controllers/gc"
	"github.com/kapi-dev/kapi/controllers/namespace"
	"github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/kinds/coordinationv1"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/kinds/eventsv1"
	"github.com/kapi-dev/kapi/meta"
)

// Authorization modes of Environment.AuthorizationMode.
const (
	AuthorizationRBAC        = "RBAC"
	AuthorizationAlwaysAllow = "AlwaysAllow"
)

// running is a started environment's server.
type running struct {
	ca   *tinyCA
	url  string
	api  *apiserver.Server
	hs   *http.Server
	stop context.CancelFunc
	wg   sync.WaitGroup // the controllers
}

// serverConfig is what startServer needs from the Environment.
type serverConfig struct {
	authorization string
	logger        *slog.Logger
}

// startServer builds a kapi server with the built-in kinds and
// CustomResourceDefinitions, runs the controllers serving the
// definitions' kinds, namespaces and garbage collection, and serves it
// over TLS on a free loopback port.
func startServer(cfg serverConfig) (r *running, err error) {
	ca, err := newTinyCA("kapi-envtest-ca")
	if err != nil {
		return nil, err
	}
	tlsCfg, err := ca.servingTLS()
	if err != nil {
		return nil, err
	}
	rules, err := cel.New(cel.Options{})
	if err != nil {
		return nil, err
	}
	lifecycle := namespace.NewLifecycle()
	opts := apiserver.Options{
		Logger: cfg.logger, RuleEngine: rules,
		Authenticator: auth.Chain{
			Authenticators: []auth.Authenticator{&auth.X509{CA: auth.StaticCAPool{P: ca.pool}}},
			Anonymous:      true,
		},
		MutatingAdmission: []apiserver.AdmissionFunc{lifecycle.Admit},
	}
	var authz *rbac.Authorizer
	var admissions *admissionPlugins
	switch cfg.authorization {
	case "", AuthorizationRBAC:
		authz = rbac.New()
		opts.Authorizer = auth.Authorizers{auth.PrivilegedGroups{auth.SystemPrivilegedGroup}, authz}
		opts.ValidatingAdmission = []apiserver.AdmissionFunc{authz.Admit}
	case AuthorizationAlwaysAllow:
	default:
		return nil, fmt.Errorf("envtest: AuthorizationMode %q: want %s or %s", cfg.authorization, AuthorizationRBAC, AuthorizationAlwaysAllow)
	}
	admissions, err = newAdmission(&opts)
	if err != nil {
		return nil, err
	}
	api := apiserver.New(opts)
	defer func() {
		if err != nil {
			api.Close()
		}
	}()
	for _, k := range append(builtinKinds(), admissionregistrationv1.Kinds(admissions.kindOptions())...) {
		api.Register(k)
	}
	definitions := crd.Serve(api, crd.Options{Logger: cfg.logger})
	if err := api.Err(); err != nil {
		return nil, fmt.Errorf("envtest: %w", err)
	}
	if err := admissions.start(api); err != nil {
		return nil, err
	}
	ctx := context.Background()
	if authz != nil {
		if err := authz.Register(api); err != nil {
			return nil, err
		}
		if err := rbac.Bootstrap(ctx, api, bootstrapPolicy()...); err != nil {
			return nil, fmt.Errorf("envtest: creating the default roles: %w", err)
		}
	}
	if err := namespace.EnsureSystem(ctx, api); err != nil {
		return nil, fmt.Errorf("envtest: creating the system namespaces: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r = &running{ca: ca, url: "https://" + ln.Addr().String(), api: api}
	r.hs = &http.Server{Handler: api, ReadHeaderTimeout: 10 * time.Second, TLSConfig: tlsCfg,
		ErrorLog: log.New(io.Discard, "", 0)} // clients that hang up mid-handshake are no news
	ctx, r.stop = context.WithCancel(ctx)
	r.runControllers(ctx, lifecycle, definitions, admissions, cfg.logger)
	go func() { _ = r.hs.Serve(tls.NewListener(ln, tlsCfg)) }()
	return r, nil
}

// builtinKinds are the kinds of kube-apiserver that controllers and
// their tests use: core/v1 Namespaces, ConfigMaps, Secrets, Events and
// ServiceAccounts, events.k8s.io/v1 Events and coordination.k8s.io/v1
// Leases (for leader election).
func builtinKinds() []apiserver.Kind {
	ks := corev1.Kinds()
	return append(ks, eventsv1.EventKind(), coordinationv1.LeaseKind())
}

// bootstrapPolicy is kube's default roles, with the built-in kinds in
// the view, edit and admin roles.
func bootstrapPolicy() []meta.Object {
	objs := rbac.BootstrapPolicy()
	objs = append(objs, rbac.AggregatedRoles("kapi:core", "", "configmaps", "secrets", "events", "serviceaccounts")...)
	objs = append(objs, rbac.AggregatedRoles("kapi:events", "events.k8s.io", "events")...)
	return append(objs, rbac.AggregatedRoles("kapi:leases", "coordination.k8s.io", "leases")...)
}

// runControllers runs the namespace lifecycle check's mirror, the
// CustomResourceDefinition controller, the namespace controller and the
// garbage collector until ctx is done. One environment is one server,
// so there is no leader election.
func (r *running) runControllers(ctx context.Context, lifecycle *namespace.Lifecycle, definitions *crd.Controller,
	admissions *admissionPlugins, logger *slog.Logger) {
	r.wg.Add(5)
	go func() {
		defer r.wg.Done()
		admissions.compiler.RunTypeChecking(ctx, r.api, time.Second, func(err error) {
			if logger != nil {
				logger.Error("type checking admission policies", "err", err)
			}
		})
	}()
	go func() {
		defer r.wg.Done()
		if err := definitions.Run(ctx); err != nil && logger != nil {
			logger.Error("custom resource definition controller stopped", "err", err)
		}
	}()
	go func() { defer r.wg.Done(); lifecycle.Run(ctx, r.api) }()
	go func() { defer r.wg.Done(); namespace.New(r.api, namespace.Options{Logger: logger}).Run(ctx) }()
	go func() {
		defer r.wg.Done()
		// The collector returns when it cannot discover the resources;
		// it starts again after a pause.
		for ctx.Err() == nil {
			if err := gc.New(r.api, gc.Options{Logger: logger}).Run(ctx); err != nil && logger != nil {
				logger.Error("garbage collector stopped", "err", err)
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
}

// close stops serving (open watches end), then the controllers, then
// the server's watch caches.
func (r *running) close() error {
	err := r.hs.Close()
	r.stop()
	r.wg.Wait()
	r.api.Close()
	return err
}
