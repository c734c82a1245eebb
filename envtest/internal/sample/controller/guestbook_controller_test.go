package controller

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	webappv1 "github.com/kapi-dev/kapi/envtest/internal/sample/api/v1"
)

// startManager runs a manager with the reconciler until the test ends.
func startManager(t *testing.T) {
	t.Helper()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := (&GuestbookReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
}

func TestGuestbookReconciler(t *testing.T) {
	g := NewWithT(t)
	g.SetDefaultEventuallyTimeout(20 * time.Second)
	g.SetDefaultEventuallyPollingInterval(50 * time.Millisecond)
	startManager(t)
	ctx := context.Background()

	gb := &webappv1.Guestbook{
		ObjectMeta: metav1.ObjectMeta{Name: "visitors", Namespace: "default"},
		Spec:       webappv1.GuestbookSpec{Title: "our visitors"},
	}
	g.Expect(k8sClient.Create(ctx, gb)).To(Succeed())

	// The reconciler makes the ConfigMap, owned by the Guestbook...
	cm := &corev1.ConfigMap{}
	key := client.ObjectKey{Namespace: "default", Name: "visitors-entries"}
	g.Eventually(func() error { return k8sClient.Get(ctx, key, cm) }).Should(Succeed())
	g.Expect(cm.Data).To(HaveKeyWithValue("title", "our visitors"))
	g.Expect(cm.OwnerReferences).To(HaveLen(1))
	g.Expect(cm.OwnerReferences[0].UID).To(Equal(gb.UID))

	// ...and reports it in the status.
	g.Eventually(func(g Gomega) {
		var got webappv1.Guestbook
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(gb), &got)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(got.Status.Conditions, "Ready")).To(BeTrue())
	}).Should(Succeed())

	// Entries written to the ConfigMap are counted.
	g.Eventually(func() error {
		if err := k8sClient.Get(ctx, key, cm); err != nil {
			return err
		}
		cm.Data["1"], cm.Data["2"] = "hello", "hi"
		return k8sClient.Update(ctx, cm)
	}).Should(Succeed())
	g.Eventually(func(g Gomega) int32 {
		var got webappv1.Guestbook
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(gb), &got)).To(Succeed())
		return got.Status.Entries
	}).Should(Equal(int32(2)))

	// A title change reaches the ConfigMap.
	g.Eventually(func() error {
		var got webappv1.Guestbook
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(gb), &got); err != nil {
			return err
		}
		got.Spec.Title = "new title"
		return k8sClient.Update(ctx, &got)
	}).Should(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, key, cm)).To(Succeed())
		g.Expect(cm.Data).To(HaveKeyWithValue("title", "new title"))
	}).Should(Succeed())
}

// TestGuestbookValidation: the CRD's schema is enforced on the way in.
func TestGuestbookValidation(t *testing.T) {
	g := NewWithT(t)
	bad := &webappv1.Guestbook{
		ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: "default"},
		Spec:       webappv1.GuestbookSpec{Title: "Capitals Are Refused"},
	}
	err := k8sClient.Create(context.Background(), bad)
	g.Expect(err).To(HaveOccurred())
	g.Expect(err.Error()).To(ContainSubstring("spec.title"))
}
