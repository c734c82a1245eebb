package v1

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kapi-dev/kapi/envtest"
	stablev1 "github.com/kapi-dev/kapi/envtest/internal/widgetwebhook/api/v1"
)

// referenceLabel marks the objects of TestWidgetWebhookOnReference: the
// webhooks it installs on a shared server see only those.
var referenceLabel = map[string]string{"ae-widget-webhook": "true"}

// TestWidgetWebhookOnReference runs the same webhook server and the same
// writes against a real kube-apiserver serving Widget as a CRD (the
// repository's reference tool), so that wantOutcomes is kube's answer.
// It runs only when KAPI_REFERENCE_KUBECONFIG names that server, and
// deletes what it creates: configurations named ae-*, which call the
// webhooks only for objects labelled referenceLabel, and the namespace
// ae-widget-webhook.
func TestWidgetWebhookOnReference(t *testing.T) {
	kubeconfig := os.Getenv("KAPI_REFERENCE_KUBECONFIG")
	if kubeconfig == "" {
		t.Skip("KAPI_REFERENCE_KUBECONFIG is not set")
	}
	refCfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(refCfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ae-widget-webhook"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), ns) })

	opts := referenceWebhooks(t)
	stop, err := startWebhookServer(ctx, refCfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := opts.Install(refCfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, m := range opts.MutatingWebhooks {
			_ = c.Delete(context.Background(), m)
		}
		for _, v := range opts.ValidatingWebhooks {
			_ = c.Delete(context.Background(), v)
		}
	})
	waitForWebhooks(ctx, t, c, ns.Name)

	got := widgetScenario(ctx, t, c, ns.Name, referenceLabel)
	if diff := cmp.Diff(wantOutcomes(), got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

// referenceWebhooks are the configurations of config/webhook pointed
// at a local webhook server as envtest points them, renamed ae-* and
// narrowed to objects labelled referenceLabel.
func referenceWebhooks(t *testing.T) *envtest.WebhookInstallOptions {
	opts := &envtest.WebhookInstallOptions{Paths: []string{filepath.Join("..", "..", "config", "webhook")}}
	if err := opts.PrepWithoutInstalling(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = opts.Cleanup() })
	selector := &metav1.LabelSelector{MatchLabels: referenceLabel}
	for _, m := range opts.MutatingWebhooks {
		m.Name = "ae-" + m.Name
		for i := range m.Webhooks {
			m.Webhooks[i].ObjectSelector = selector
		}
	}
	for _, v := range opts.ValidatingWebhooks {
		v.Name = "ae-" + v.Name
		for i := range v.Webhooks {
			v.Webhooks[i].ObjectSelector = selector
		}
	}
	return opts
}

// waitForWebhooks waits until kube-apiserver calls the installed
// webhooks: it reads configurations through an informer, so they take
// effect a moment after they are written.
func waitForWebhooks(ctx context.Context, t *testing.T, c client.Client, ns string) {
	for ctx.Err() == nil {
		w := &stablev1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "ae-probe", Namespace: ns, Labels: referenceLabel}}
		if err := c.Create(ctx, w, client.DryRunAll); err == nil && w.Spec.Color == "blue" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the webhooks were not called in time")
}
