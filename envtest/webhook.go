package envtest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// WebhookInstallOptions are the options of admission webhooks, as
// controller-runtime's envtest has them: Start reads the configurations
// of Paths, points each webhook reached through a Service path at the
// local webhook server (https://LocalServingHostExternalName:LocalServingPort/PATH),
// gives every webhook the local serving CA as its caBundle, and installs
// them once the server runs; kapi then calls them on every write they
// match, as kube-apiserver does.
type WebhookInstallOptions struct {
	// Paths are directories or files of webhook configurations
	// (.yaml, .yml or .json; other kinds of documents are skipped).
	Paths []string
	// MutatingWebhooks and ValidatingWebhooks are webhook
	// configurations installed with those of Paths.
	MutatingWebhooks   []*admissionv1.MutatingWebhookConfiguration
	ValidatingWebhooks []*admissionv1.ValidatingWebhookConfiguration
	// IgnoreSchemeConvertible is accepted for compatibility.
	IgnoreSchemeConvertible bool
	// IgnoreErrorIfPathMissing skips paths that do not exist instead of
	// failing Start.
	IgnoreErrorIfPathMissing bool
	// LocalServingHost is the webhook server's host; default 127.0.0.1.
	LocalServingHost string
	// LocalServingPort is a free port for the webhook server, set by
	// Start when zero.
	LocalServingPort int
	// LocalServingCertDir holds tls.crt and tls.key, set by Start.
	LocalServingCertDir string
	// LocalServingCAData is the CA of that certificate, set by Start.
	LocalServingCAData []byte
	// LocalServingHostExternalName is the host name the server reaches
	// the webhook server by; default LocalServingHost.
	LocalServingHostExternalName string
	// MaxTime and PollInterval bound the wait for the installed
	// configurations; defaults 10s and 10ms.
	MaxTime, PollInterval time.Duration
}

var (
	mutatingWebhooks   = admissionv1.SchemeGroupVersion.WithResource("mutatingwebhookconfigurations")
	validatingWebhooks = admissionv1.SchemeGroupVersion.WithResource("validatingwebhookconfigurations")
)

// PrepWithoutInstalling picks the local port, writes a serving
// certificate for the webhook server, reads the configurations of Paths
// and points them at the local webhook server, without installing them.
func (o *WebhookInstallOptions) PrepWithoutInstalling() error {
	if err := o.setupServing(); err != nil {
		return err
	}
	if err := o.readPaths(); err != nil {
		return err
	}
	return o.ModifyWebhookDefinitions()
}

// ModifyWebhookDefinitions points every webhook reached through a
// Service path at the local webhook server and gives every webhook the
// local serving CA, as controller-runtime's envtest does (webhooks given
// by URL keep it).
func (o *WebhookInstallOptions) ModifyWebhookDefinitions() error {
	hostPort := o.hostPort()
	for _, c := range o.MutatingWebhooks {
		for i := range c.Webhooks {
			pointAt(&c.Webhooks[i].ClientConfig, hostPort, o.LocalServingCAData)
		}
	}
	for _, c := range o.ValidatingWebhooks {
		for i := range c.Webhooks {
			pointAt(&c.Webhooks[i].ClientConfig, hostPort, o.LocalServingCAData)
		}
	}
	return nil
}

func pointAt(cc *admissionv1.WebhookClientConfig, hostPort string, ca []byte) {
	cc.CABundle = ca
	if cc.Service != nil && cc.Service.Path != nil {
		url := fmt.Sprintf("https://%s/%s", hostPort, *cc.Service.Path)
		cc.URL, cc.Service = &url, nil
	}
}

func (o *WebhookInstallOptions) hostPort() string {
	host := o.LocalServingHostExternalName
	if host == "" {
		host = o.LocalServingHost
	}
	return net.JoinHostPort(host, strconv.Itoa(o.LocalServingPort))
}

// Install installs the configurations through the API at config and
// waits until they are served; it prepares them first unless
// PrepWithoutInstalling did.
func (o *WebhookInstallOptions) Install(config *rest.Config) error {
	if o.MaxTime <= 0 {
		o.MaxTime = defaultMaxWait
	}
	if o.PollInterval <= 0 {
		o.PollInterval = defaultPollInterval
	}
	if len(o.LocalServingCAData) == 0 {
		if err := o.PrepWithoutInstalling(); err != nil {
			return err
		}
	}
	dc, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.MaxTime)
	defer cancel()
	for _, c := range o.MutatingWebhooks {
		if err := ensureCreated(ctx, dc.Resource(mutatingWebhooks), c); err != nil {
			return fmt.Errorf("envtest: installing MutatingWebhookConfiguration %s: %w", c.Name, err)
		}
	}
	for _, c := range o.ValidatingWebhooks {
		if err := ensureCreated(ctx, dc.Resource(validatingWebhooks), c); err != nil {
			return fmt.Errorf("envtest: installing ValidatingWebhookConfiguration %s: %w", c.Name, err)
		}
	}
	return nil
}

// ensureCreated creates obj, or updates it when it exists. kapi serves
// what it stored at once, so there is nothing to wait for after.
func ensureCreated(ctx context.Context, rc dynamic.ResourceInterface, obj runtime.Object) error {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: content}
	cur, err := rc.Get(ctx, u.GetName(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = rc.Create(ctx, u, metav1.CreateOptions{})
		return err
	case err != nil:
		return err
	}
	u.SetResourceVersion(cur.GetResourceVersion())
	_, err = rc.Update(ctx, u, metav1.UpdateOptions{})
	return err
}

// Cleanup removes the serving certificate's directory.
func (o *WebhookInstallOptions) Cleanup() error {
	if o.LocalServingCertDir == "" {
		return nil
	}
	return os.RemoveAll(o.LocalServingCertDir)
}

// setupServing picks the local port and writes a serving certificate.
func (o *WebhookInstallOptions) setupServing() error {
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

// readPaths adds the configurations of Paths.
func (o *WebhookInstallOptions) readPaths() error {
	for _, p := range o.Paths {
		files, err := manifestFiles(p)
		if errors.Is(err, fs.ErrNotExist) && o.IgnoreErrorIfPathMissing {
			continue
		}
		if err != nil {
			return fmt.Errorf("envtest: webhook path: %w", err)
		}
		for _, f := range files {
			err := eachDocument(f, func(doc []byte, apiVersion, kind string) error {
				if apiVersion != admissionv1.SchemeGroupVersion.String() {
					return nil
				}
				switch kind {
				case "MutatingWebhookConfiguration":
					c := &admissionv1.MutatingWebhookConfiguration{}
					if err := yaml.UnmarshalStrict(doc, c); err != nil {
						return err
					}
					o.MutatingWebhooks = append(o.MutatingWebhooks, c)
				case "ValidatingWebhookConfiguration":
					c := &admissionv1.ValidatingWebhookConfiguration{}
					if err := yaml.UnmarshalStrict(doc, c); err != nil {
						return err
					}
					o.ValidatingWebhooks = append(o.ValidatingWebhooks, c)
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("envtest: %s: %w", f, err)
			}
		}
	}
	return nil
}
