package envtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Environment is an in-process kapi server for controller tests, in the
// shape of controller-runtime's envtest.Environment. The zero value is
// ready to Start.
type Environment struct {
	// Scheme is the scheme of the suite's clients; default client-go's
	// scheme.Scheme.
	Scheme *runtime.Scheme

	// Config is set by Start: it connects as an administrator (user
	// admin in system:masters). With UseExistingCluster it may be set
	// beforehand.
	Config *rest.Config

	// KubeConfig is Config as a kubeconfig, set by Start.
	KubeConfig []byte

	// CRDInstallOptions are the CRDs to install, merged with CRDs,
	// CRDDirectoryPaths and ErrorIfCRDPathMissing.
	CRDInstallOptions CRDInstallOptions

	// WebhookInstallOptions prepare a webhook server's port and
	// certificate (admission webhooks themselves are not supported).
	WebhookInstallOptions WebhookInstallOptions

	// ErrorIfCRDPathMissing makes Start fail when a CRD path does not
	// exist.
	ErrorIfCRDPathMissing bool

	// CRDs are CRDs to install; after Start, every installed CRD.
	CRDs []*apiextensionsv1.CustomResourceDefinition

	// CRDDirectoryPaths are directories (or files) of CRD manifests to
	// install.
	CRDDirectoryPaths []string

	// AuthorizationMode is RBAC (the default, as envtest configures
	// kube-apiserver), with kube's default roles, or AlwaysAllow.
	AuthorizationMode string

	// Logger receives the server's request log and its controllers'
	// errors; default: none.
	Logger *slog.Logger

	// UseExistingCluster, when true (or, when nil, when the environment
	// variable USE_EXISTING_CLUSTER is "true"), starts nothing and uses
	// Config, or the kubeconfig of the usual loading rules.
	UseExistingCluster *bool

	// BinaryAssetsDirectory, DownloadBinaryAssets,
	// DownloadBinaryAssetsVersion, DownloadBinaryAssetsIndexURL,
	// AttachControlPlaneOutput, ControlPlaneStartTimeout and
	// ControlPlaneStopTimeout are accepted so that suites written for
	// controller-runtime's envtest compile unchanged; there are no
	// binaries nor processes, so they have no effect.
	BinaryAssetsDirectory        string
	DownloadBinaryAssets         bool
	DownloadBinaryAssetsVersion  string
	DownloadBinaryAssetsIndexURL string
	AttachControlPlaneOutput     bool
	ControlPlaneStartTimeout     time.Duration
	ControlPlaneStopTimeout      time.Duration

	running *running
}

// Start starts the server, creates the CRDs through its API and waits
// until they are Established, and returns the administrator's
// rest.Config. Call Stop when done.
func (te *Environment) Start() (*rest.Config, error) {
	if te.running != nil {
		return nil, errors.New("envtest: the environment is already started")
	}
	if te.Scheme == nil {
		te.Scheme = scheme.Scheme
	}
	if te.CRDInstallOptions.Scheme == nil {
		te.CRDInstallOptions.Scheme = te.Scheme
	}
	te.CRDInstallOptions.CRDs = mergeCRDs(te.CRDInstallOptions.CRDs, te.CRDs)
	te.CRDInstallOptions.Paths = mergePaths(te.CRDInstallOptions.Paths, te.CRDDirectoryPaths)
	te.CRDInstallOptions.ErrorIfPathMissing = te.ErrorIfCRDPathMissing
	install := te.CRDInstallOptions
	defaultCRDOptions(&install)
	if err := ReadCRDFiles(&install); err != nil {
		return nil, err
	}
	if te.useExistingCluster() {
		return te.startExisting(install)
	}
	r, err := startServer(serverConfig{authorization: te.AuthorizationMode, logger: te.Logger})
	if err != nil {
		return nil, err
	}
	te.running = r
	admin, err := te.AddUser(User{Name: "admin", Groups: []string{"system:masters"}}, &rest.Config{QPS: 1000, Burst: 2000})
	if err == nil {
		te.Config = admin.Config()
		te.KubeConfig, err = KubeConfigFromREST(te.Config)
	}
	if err == nil {
		err = te.WebhookInstallOptions.PrepWithoutInstalling()
	}
	if err == nil {
		err = te.installCRDs(install)
	}
	if err == nil {
		err = te.WebhookInstallOptions.Install(te.Config)
	}
	if err == nil {
		err = te.syncAdmission()
	}
	if err != nil {
		_ = te.Stop()
		return nil, err
	}
	return te.Config, nil
}

// installCRDs creates the CRDs and waits for them; te.CRDs is then every
// one of them.
func (te *Environment) installCRDs(install CRDInstallOptions) error {
	if err := CreateCRDs(te.Config, install.CRDs); err != nil {
		return err
	}
	if err := WaitForCRDs(te.Config, install.CRDs, install); err != nil {
		return err
	}
	te.CRDs = install.CRDs
	return nil
}

// startExisting connects to an existing cluster instead of starting a
// server, and installs the CRDs there.
func (te *Environment) startExisting(install CRDInstallOptions) (*rest.Config, error) {
	if te.Config == nil {
		cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
			clientcmd.NewDefaultClientConfigLoadingRules(), &clientcmd.ConfigOverrides{}).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("envtest: the existing cluster's configuration: %w", err)
		}
		te.Config = cfg
	}
	if err := te.installCRDs(install); err != nil {
		return nil, err
	}
	if err := te.WebhookInstallOptions.Install(te.Config); err != nil {
		return nil, err
	}
	return te.Config, nil
}

// Stop stops the server: open connections are closed, the controllers
// stopped and everything stored is gone.
func (te *Environment) Stop() error {
	errs := []error{te.WebhookInstallOptions.Cleanup()}
	if te.CRDInstallOptions.CleanUpAfterUse && te.Config != nil && (te.running != nil || te.useExistingCluster()) {
		errs = append(errs, UninstallCRDs(te.Config, te.CRDInstallOptions))
	}
	if te.running != nil {
		errs = append(errs, te.running.close())
		te.running = nil
	}
	return errors.Join(errs...)
}

func (te *Environment) useExistingCluster() bool {
	if te.UseExistingCluster != nil {
		return *te.UseExistingCluster
	}
	return strings.EqualFold(os.Getenv("USE_EXISTING_CLUSTER"), "true")
}

// syncAdmission waits, at most WebhookInstallOptions.MaxTime, until the
// installed webhooks take effect.
func (te *Environment) syncAdmission() error {
	ctx, cancel := context.WithTimeout(context.Background(), te.WebhookInstallOptions.MaxTime)
	defer cancel()
	return syncAdmission(ctx, te.running.api)
}
