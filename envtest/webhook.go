package envtest

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/client-go/rest"
)

// WebhookInstallOptions are the options of admission webhooks. kapi does
// not call admission webhooks: Start fails if any webhook configuration
// is given. Start still prepares what a controller's webhook server
// needs (a free local port and a serving certificate signed by
// LocalServingCAData), so suites that start one keep working.
type WebhookInstallOptions struct {
	// Paths are directories or files of webhook configurations; not
	// supported.
	Paths []string
	// MutatingWebhooks and ValidatingWebhooks are webhook
	// configurations; not supported.
	MutatingWebhooks   []*admissionv1.MutatingWebhookConfiguration
	ValidatingWebhooks []*admissionv1.ValidatingWebhookConfiguration
	// IgnoreSchemeConvertible and IgnoreErrorIfPathMissing are accepted
	// for compatibility.
	IgnoreSchemeConvertible  bool
	IgnoreErrorIfPathMissing bool
	// LocalServingHost is the webhook server's host; default 127.0.0.1.
	LocalServingHost string
	// LocalServingPort is a free port for the webhook server, set by
	// Start.
	LocalServingPort int
	// LocalServingCertDir holds tls.crt and tls.key, set by Start.
	LocalServingCertDir string
	// LocalServingCAData is the CA of that certificate, set by Start.
	LocalServingCAData []byte
	// LocalServingHostExternalName is the host name to reach the
	// webhook server by; default LocalServingHost.
	LocalServingHostExternalName string
	// MaxTime and PollInterval are accepted for compatibility.
	MaxTime, PollInterval time.Duration
}

// errWebhooks is the refusal of webhook configurations.
var errWebhooks = errors.New("envtest: kapi does not call admission webhooks; remove the webhook configurations from WebhookInstallOptions")

// PrepWithoutInstalling picks the local port and writes a serving
// certificate for the webhook server.
func (o *WebhookInstallOptions) PrepWithoutInstalling() error {
	if len(o.Paths) > 0 || len(o.MutatingWebhooks) > 0 || len(o.ValidatingWebhooks) > 0 {
		return errWebhooks
	}
	if o.LocalServingHost == "" {
		o.LocalServingHost = "127.0.0.1"
	}
	if o.LocalServingHostExternalName == "" {
		o.LocalServingHostExternalName = o.LocalServingHost
	}
	if o.LocalServingPort == 0 {
		ln, err := net.Listen("tcp", net.JoinHostPort(o.LocalServingHost, "0"))
		if err != nil {
			return err
		}
		o.LocalServingPort = ln.Addr().(*net.TCPAddr).Port
		if err := ln.Close(); err != nil {
			return err
		}
	}
	ca, err := newTinyCA("envtest-webhook-ca")
	if err != nil {
		return err
	}
	certPEM, keyPEM, err := ca.issue("envtest-webhook", nil, true, o.LocalServingHost, o.LocalServingHostExternalName, "localhost")
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "envtest-serving-certs-")
	if err != nil {
		return err
	}
	o.LocalServingCertDir, o.LocalServingCAData = dir, ca.pem
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), certPEM, 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tls.key"), keyPEM, 0o600)
}

// Install installs nothing: see [WebhookInstallOptions].
func (o *WebhookInstallOptions) Install(_ *rest.Config) error {
	if len(o.Paths) > 0 || len(o.MutatingWebhooks) > 0 || len(o.ValidatingWebhooks) > 0 {
		return errWebhooks
	}
	return nil
}

// Cleanup removes the serving certificate's directory.
func (o *WebhookInstallOptions) Cleanup() error {
	if o.LocalServingCertDir == "" {
		return nil
	}
	return os.RemoveAll(o.LocalServingCertDir)
}
