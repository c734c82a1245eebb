package v1

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	// The one line that differs from a suite run against
	// controller-runtime's envtest:
	//   "sigs.k8s.io/controller-runtime/pkg/envtest"
	"github.com/kapi-dev/kapi/envtest"

	stablev1 "github.com/kapi-dev/kapi/envtest/internal/widgetwebhook/api/v1"
)

var (
	cfg       *rest.Config
	k8sClient client.Client
	testEnv   *envtest.Environment
	scheme    = runtime.NewScheme()
)

// TestMain starts one environment and one webhook server for the suite,
// as kubebuilder's scaffolded webhook_suite_test.go does in its
// BeforeSuite.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := stablev1.AddToScheme(scheme); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: false,
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			Paths: []string{filepath.Join("..", "..", "config", "webhook")},
		},
	}
	var err error
	cfg, err = testEnv.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the test environment:", err)
		return 1
	}
	defer func() {
		if err := testEnv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the test environment:", err)
		}
	}()
	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	stop, err := startWebhookServer(ctx, cfg, &testEnv.WebhookInstallOptions)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the webhook server:", err)
		return 1
	}
	defer stop()
	return m.Run()
}

// startWebhookServer runs a manager whose webhook server serves the
// Widget webhooks where the install options pointed the configurations,
// with a client of the server at cfg, and waits until it accepts TLS connections.
func startWebhookServer(ctx context.Context, cfg *rest.Config, opts *envtest.WebhookInstallOptions) (stop func(), err error) {
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme,
		WebhookServer: webhook.NewServer(webhook.Options{
			Host:    opts.LocalServingHost,
			Port:    opts.LocalServingPort,
			CertDir: opts.LocalServingCertDir,
		}),
		LeaderElection: false,
		Metrics:        metricsserver.Options{BindAddress: "0"},
	})
	if err != nil {
		return nil, err
	}
	if err := SetupWidgetWebhookWithManager(mgr); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	stop = func() {
		cancel()
		if err := <-done; err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}
	if err := waitForTLS(opts, 10*time.Second); err != nil {
		stop()
		return nil, err
	}
	return stop, nil
}

// waitForTLS dials the webhook server until a TLS handshake succeeds.
func waitForTLS(opts *envtest.WebhookInstallOptions, limit time.Duration) error {
	dialer := &net.Dialer{Timeout: time.Second}
	addrPort := fmt.Sprintf("%s:%d", opts.LocalServingHost, opts.LocalServingPort)
	deadline := time.Now().Add(limit)
	for {
		conn, err := tls.DialWithDialer(dialer, "tcp", addrPort, &tls.Config{InsecureSkipVerify: true})
		if err == nil {
			return conn.Close()
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}
