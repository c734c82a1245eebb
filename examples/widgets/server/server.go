// Package server runs the Widget example: kapi serving the Widget and
// Gadget kinds and the run-time Sprocket kind, mounted on a plain
// net/http mux. It also serves the control plane a Kubernetes client
// expects: core/v1 Namespaces (checked on every write), ConfigMaps,
// Secrets, Events and ServiceAccounts, events.k8s.io/v1 Events and
// coordination.k8s.io/v1 Leases, with the garbage collector and the
// namespace controller running in one server at a time. The Widget and
// Sprocket schemas carry CEL validation rules, evaluated by the engine of
// github.com/kapi-dev/kapi/cel. It serves apiextensions.k8s.io/v1
// CustomResourceDefinitions and the kinds they define (package
// controllers/crd), and --crds DIR creates the definitions of the
// manifests in DIR at start.
//
// # Storage
//
// --storage picks the store (Config.Storage):
//
//	--storage memory                                the default: in the process, gone when it exits
//	--storage etcd --etcd-endpoints URL[,URL...]    an etcd cluster, which several servers may share
//	--storage embedded-etcd --data-dir DIR          a single-member etcd in the process, durable in DIR
//
// With etcd, every key is under --etcd-prefix (default /kapi). Servers
// sharing one etcd cluster serve one API: a write through one is seen by
// the watches and reads of the others, and optimistic concurrency holds
// across them, since each write is a compare-and-swap in etcd. While the
// cluster has no quorum, requests fail within the etcd request timeout
// with a 503 Status and Retry-After, and watches stay open and resume
// when it is back. The embedded etcd listens on free loopback ports (the
// start-up line prints its client URL); restarting on the same DIR
// serves every object with its resourceVersion.
//
// # Memory
//
// The command runs Go's garbage collector with GOGC 75 rather than 100
// (--gc-percent, see [DefaultGCPercent]): most of the heap is stored
// objects, which live long, and the lower setting keeps the resident set
// smaller for a few percent more CPU on writes. GOGC and
// GOMEMLIMIT in the environment are honoured as by any Go program. Once
// allocation has been low for a while after a burst of writes, it
// returns the heap's free pages to the system rather than keeping them
// for the next burst (--idle-memory-release, see
// [DefaultIdleMemoryRelease]).
package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/cel"
	"github.com/kapi-dev/kapi/controllers"
	"github.com/kapi-dev/kapi/controllers/crd"
	"github.com/kapi-dev/kapi/controllers/leader"
	"github.com/kapi-dev/kapi/controllers/namespace"
	"github.com/kapi-dev/kapi/examples/internal/kubeconfig"
	"github.com/kapi-dev/kapi/examples/widgets/api"
	"github.com/kapi-dev/kapi/kinds/admissionregistrationv1"
	"github.com/kapi-dev/kapi/kinds/coordinationv1"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/kinds/eventsv1"
	"github.com/kapi-dev/kapi/storage/etcd"
)

// Config configures the example server.
type Config struct {
	// Storage names the store: "memory" (the default), "etcd" (the
	// cluster at EtcdEndpoints) or "embedded-etcd" (a single-member etcd
	// run in the process, its data in DataDir).
	Storage string
	// EtcdEndpoints are the client URLs of the etcd cluster, for "etcd".
	EtcdEndpoints []string
	// DataDir is the embedded etcd's data directory, for
	// "embedded-etcd". It is created if missing; a directory of an
	// earlier run is reopened with everything stored in it.
	DataDir string
	// EtcdPrefix is prepended to every etcd key; default DefaultEtcdPrefix.
	EtcdPrefix string
	// EtcdRequestTimeout bounds each etcd request; default: the etcd
	// backend's (etcd.DefaultRequestTimeout).
	EtcdRequestTimeout time.Duration
	// StorageMediaType is the encoding of stored values (apiserver
	// Options.StorageMediaType): "" or application/json,
	// application/vnd.kubernetes.protobuf or application/cbor.
	StorageMediaType string
	// Logger receives the request log; nil discards it.
	Logger *slog.Logger
	// Identity names this server in the election of the one that runs
	// the controllers; default: host name, process id and start time.
	Identity string
	// DisableControllers runs neither the garbage collector nor the
	// namespace controller (nor their leader election), as a server
	// sharing a store whose controllers run elsewhere would, and for
	// measuring what they cost. Namespaces are still created and checked
	// on every write, but deleting one leaves it Terminating and owner
	// references no longer cascade.
	DisableControllers bool
	// Auth configures authentication, authorization and audit; the zero
	// value authenticates no one and allows everything.
	Auth AuthConfig
	// DisableAdmissionPlugins turns off admission plugins by
	// kube-apiserver's names (MutatingAdmissionWebhook,
	// ValidatingAdmissionPolicy, ValidatingAdmissionWebhook), which are
	// all on by default.
	DisableAdmissionPlugins []string
	// CRDs is a directory whose CustomResourceDefinition manifests (YAML
	// or JSON, one or more documents a file) are created, or updated, at
	// start; Open returns once their kinds are served.
	CRDs string
	// Ops are the limits, timeouts, shutdown delay, profiling and
	// tracing (see [Operations]); the zero value is no limit, no
	// timeout, no delay, no metrics, no profiling, no tracing.
	Ops Operations

	etcdObserver etcd.Observer // set by Open: the metrics
}

// Server is an open example server: its handler and the store under it.
type Server struct {
	// Handler serves the API, mounted on a mux as a host service would.
	Handler http.Handler
	// EtcdURL is the embedded etcd's client URL ("embedded-etcd" only).
	EtcdURL string
	// AdminCert is the administrator's client certificate (in
	// system:masters) of a server in RBAC mode, nil otherwise.
	AdminCert *KeyPair

	api    *apiserver.Server
	sec    *security
	closes []func()
	ops    Operations
	// stopControlPlane stops the controllers and the namespace mirror.
	stopControlPlane func()
}

// kinds are the kinds the example server serves besides the run-time
// Sprocket.
func kinds() []apiserver.Kind {
	ks := []apiserver.Kind{api.WidgetKind(), api.GadgetKind()}
	ks = append(ks, corev1.Kinds()...)
	// The admission configurations are served (discovery, OpenAPI,
	// Tables); the webhook and policy engines that read them are wired
	// apart.

	return append(ks, eventsv1.EventKind(), coordinationv1.LeaseKind())
}

// Open builds the API server with the example kinds on the store cfg
// names. Close it when done: it may hold an etcd client and an embedded
// etcd.
func Open(cfg Config) (*Server, error) {
	rules, err := cel.New(cel.Options{})
	if err != nil {
		return nil, err
	}
	in, err := openInstruments(cfg.Ops)
	if err != nil {
		return nil, err
	}
	if cfg.Ops.Metrics {
		cfg.etcdObserver = in.metrics
	}
	st, err := openStorage(cfg)
	if err != nil {
		in.close()
		return nil, err
	}
	srv := &Server{EtcdURL: st.clientURL, closes: append(st.closes, in.close), ops: cfg.Ops}
	sec, err := newSecurity(cfg.Auth, os.Stdout)
	if err != nil {
		srv.Close()
		return nil, err
	}
	srv.sec, srv.AdminCert = sec, sec.admin
	srv.closes = append(srv.closes, sec.close)
	opts := sec.opts
	opts.Storage, opts.StorageMediaType, opts.Logger = st.store, cfg.StorageMediaType, cfg.Logger
	cfg.Ops.apply(&opts, in)
	opts.RuleEngine = rules
	lifecycle := namespace.NewLifecycle()
	opts.MutatingAdmission = append(opts.MutatingAdmission, lifecycle.Admit)
	plugins, err := newAdmission(&opts, admissionConfig{authz: opts.Authorizer, metrics: in.webhooks,
		logger: cfg.Logger, disabled: cfg.DisableAdmissionPlugins})
	if err != nil {
		srv.Close()
		return nil, err
	}
	srv.api = apiserver.New(opts)
	sprocket, err := api.SprocketKind()
	if err != nil {
		srv.Close()
		return nil, err
	}
	for _, k := range append(kinds(), sprocket) {
		srv.api.Register(k)
	}
	for _, k := range admissionregistrationv1.Kinds(plugins.kindOptions()) {
		srv.api.Register(k)
	}
	crds := crd.Serve(srv.api, crd.Options{Logger: cfg.Logger})
	if err := srv.api.Err(); err != nil {
		srv.Close()
		return nil, err
	}
	if err := plugins.start(srv.api); err != nil {
		srv.Close()
		return nil, err
	}
	if err := sec.install(srv.api); err != nil {
		srv.Close()
		return nil, err
	}
	if err := srv.startControlPlane(lifecycle, crds, plugins, cfg); err != nil {
		srv.Close()
		return nil, err
	}
	if err := srv.loadCRDs(cfg.CRDs); err != nil {
		srv.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/", srv.api)
	cfg.Ops.mount(mux, srv.api, in)
	srv.Handler = mux
	return srv, nil
}

// startControlPlane creates the immortal namespaces, then runs the
// namespace mirror of the lifecycle check and the controllers until Close.
func (s *Server) startControlPlane(lifecycle *namespace.Lifecycle, crds *crd.Controller, plugins *admissionPlugins, cfg Config) error {
	ctx, cancel := context.WithCancel(context.Background())
	if err := namespace.EnsureSystem(ctx, s.api); err != nil {
		cancel()
		return err
	}
	identity := cfg.Identity
	if identity == "" {
		host, _ := os.Hostname()
		identity = fmt.Sprintf("%s_%d_%d", host, os.Getpid(), time.Now().UnixNano())
	}
	done := make(chan struct{}, 4)
	go func() { lifecycle.Run(ctx, s.api); done <- struct{}{} }()
	go func() { plugins.runTypeChecking(ctx, s.api, cfg.Logger); done <- struct{}{} }()
	// Every server serves the kinds of the definitions it sees, so that
	// servers sharing a store serve the same API.
	go func() { _ = crds.Run(ctx); done <- struct{}{} }()
	if cfg.DisableControllers {
		s.stopControlPlane = func() { cancel(); <-done; <-done; <-done }
		return nil
	}
	go func() {
		opts := controllers.Options{Election: leader.Options{Identity: identity}, Logger: cfg.Logger}
		if err := controllers.Run(ctx, s.api, opts); err != nil && cfg.Logger != nil {
			cfg.Logger.Error("controllers stopped", "err", err)
		}
		done <- struct{}{}
	}()
	s.stopControlPlane = func() { cancel(); <-done; <-done; <-done; <-done }
	return nil
}

// loadCRDs creates the definitions of the manifests in dir, if any, and
// waits for their kinds to be served.
func (s *Server) loadCRDs(dir string) error {
	if dir == "" {
		return nil
	}
	defs, err := crd.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("--crds: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := crd.Create(ctx, s.api, defs...); err != nil {
		return fmt.Errorf("--crds: %w", err)
	}
	return nil
}

// Close stops the watch caches, then closes the etcd client and stops the
// embedded etcd, if any. An embedded etcd has synced every acknowledged
// write to disk before Close returns.
func (s *Server) Close() {
	if s.stopControlPlane != nil {
		// The controllers go first: they read through the server.
		s.stopControlPlane()
		s.stopControlPlane = nil
	}
	if s.api != nil {
		s.api.Close()
	}
	for _, c := range s.closes {
		c()
	}
	s.closes = nil
}

// NewHandler is [Open] for callers that keep the server for the life of
// the process: nothing it opens is ever closed.
func NewHandler(cfg Config) (http.Handler, error) {
	srv, err := Open(cfg)
	if err != nil {
		return nil, err
	}
	return srv.Handler, nil
}

// Run parses the command line, serves until ctx is done and shuts down
// gracefully: the HTTP server first, then the store (see [Server.Close]).
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	applyGCPercent(fl.gcPercent, os.Getenv)
	srv, err := Open(fl.cfg)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", fl.addr)
	if err != nil {
		return err
	}
	tlsCfg, err := srv.sec.tlsConfig(fl.tlsCert, fl.tlsKey, fl.cfg.Auth)
	if err != nil {
		_ = ln.Close()
		return err
	}
	scheme := "http"
	if tlsCfg != nil {
		scheme = "https"
	}
	url := scheme + "://" + ln.Addr().String()
	if err := writeKubeconfig(fl.kubeconfig, url, srv.AdminCert); err != nil {
		_ = ln.Close()
		return err
	}
	fmt.Fprintf(stdout, "kapi widgets server listening on %s (storage: %s)\n", url, storageLine(fl.cfg, srv))
	fmt.Fprintf(stdout, "use it with kubectl:\n  export KUBECONFIG=%s\n  kubectl api-resources\n  kubectl get widgets\n", fl.kubeconfig)
	hs := newHTTPServer(srv.Handler, fl.cfg.Ops)
	hs.TLSConfig = tlsCfg
	releaseCtx, stopRelease := context.WithCancel(ctx)
	defer stopRelease()
	go releaseIdleMemory(releaseCtx, fl.idleRelease)
	return srv.serve(ctx, hs, ln)
}

// writeKubeconfig writes the kubeconfig for kubectl: with the
// administrator's client certificate when the server made one.
func writeKubeconfig(path, url string, admin *KeyPair) error {
	if admin == nil {
		return kubeconfig.Write(path, url, "default")
	}
	return kubeconfig.WriteConfig(path, kubeconfig.Config{
		Server: url, Namespace: "default", InsecureSkipTLSVerify: true,
		ClientCertificateData: admin.CertPEM, ClientKeyData: admin.KeyPEM,
	})
}

// serve serves on ln (with TLS when hs has a TLSConfig) until ctx is
// done (SIGTERM or SIGINT), then shuts down gracefully (see
// [apiserver.Server.Shutdown]).
func (s *Server) serve(ctx context.Context, hs *http.Server, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() {
		if hs.TLSConfig != nil {
			errc <- hs.ServeTLS(ln, "", "")
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	return shutdown(s.api, hs, s.ops.ShutdownDelayDuration)
}

// storageLine describes the store for the start-up message.
func storageLine(cfg Config, srv *Server) string {
	switch cfg.Storage {
	case StorageEtcd:
		return "etcd at " + strings.Join(cfg.EtcdEndpoints, ",")
	case StorageEmbeddedEtcd:
		return "embedded etcd in " + cfg.DataDir + ", clients at " + srv.EtcdURL
	}
	return StorageMemory
}
