package envtest_test

import (
	"context"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kapi-dev/kapi/envtest"
)

// TestWebhooksTakeEffectAtStart: the webhooks Start installs are called
// from the first write after Start on, though kapi reads them through a
// watch cache that follows the store a moment behind. The webhook here
// cannot be reached and fails closed, so a write it saw is refused.
func TestWebhooksTakeEffectAtStart(t *testing.T) {
	for i := range 5 {
		unreachable, fail, none := "https://127.0.0.1:1/refuse", admissionv1.Fail, admissionv1.SideEffectClassNone
		env := &envtest.Environment{WebhookInstallOptions: envtest.WebhookInstallOptions{
			ValidatingWebhooks: []*admissionv1.ValidatingWebhookConfiguration{{
				ObjectMeta: metav1.ObjectMeta{Name: "refuse-configmaps"},
				Webhooks: []admissionv1.ValidatingWebhook{{
					Name: "refuse.example.com", AdmissionReviewVersions: []string{"v1"}, SideEffects: &none,
					FailurePolicy: &fail, ClientConfig: admissionv1.WebhookClientConfig{URL: &unreachable},
					Rules: []admissionv1.RuleWithOperations{{
						Operations: []admissionv1.OperationType{admissionv1.Create},
						Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
					}},
				}},
			}},
		}}
		cfg := start(t, env)
		cs := kubernetes.NewForConfigOrDie(cfg)
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "first", Namespace: "default"}}
		_, err := cs.CoreV1().ConfigMaps("default").Create(context.Background(), cm, metav1.CreateOptions{})
		if err == nil || !strings.Contains(err.Error(), `failed calling webhook "refuse.example.com"`) {
			t.Fatalf("start %d: the first create after Start: %v, want the webhook's failure", i, err)
		}
		if err := env.Stop(); err != nil {
			t.Fatal(err)
		}
	}
}
