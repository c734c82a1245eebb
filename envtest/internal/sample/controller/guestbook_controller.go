// Package controller is a sample controller-runtime controller with a
// test suite written for controller-runtime's envtest, run here against
// kapi's: only the envtest import differs.
//
// The Guestbook reconciler keeps a ConfigMap of entries for every
// Guestbook, owned by it, and reports in the Guestbook's status how many
// entries there are and whether the ConfigMap is in place.
package controller

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	webappv1 "github.com/kapi-dev/kapi/envtest/internal/sample/api/v1"
)

// GuestbookReconciler reconciles Guestbooks.
type GuestbookReconciler struct {
	client.Client
	Scheme *runtime.Scheme
}

// entriesName is the name of a Guestbook's ConfigMap of entries.
func entriesName(gb *webappv1.Guestbook) string { return gb.Name + "-entries" }

// Reconcile makes the Guestbook's ConfigMap exist, owned by it, with its
// title, and sets the Guestbook's status from it.
func (r *GuestbookReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var gb webappv1.Guestbook
	if err := r.Get(ctx, req.NamespacedName, &gb); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: entriesName(&gb), Namespace: gb.Namespace}}
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data["title"] = gb.Spec.Title
		return controllerutil.SetControllerReference(&gb, cm, r.Scheme)
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	entries := int32(0)
	for k := range cm.Data {
		if _, err := strconv.Atoi(k); err == nil {
			entries++
		}
	}
	gb.Status.Entries = entries
	meta.SetStatusCondition(&gb.Status.Conditions, metav1.Condition{
		Type: "Ready", Status: metav1.ConditionTrue, Reason: "EntriesStored",
		Message: "the entries are in ConfigMap " + cm.Name, ObservedGeneration: gb.Generation,
	})
	if err := r.Status().Update(ctx, &gb); err != nil && !apierrors.IsConflict(err) {
		return ctrl.Result{}, err
	} else if err != nil {
		return ctrl.Result{Requeue: true}, nil
	}
	return ctrl.Result{}, nil
}

// SetupWithManager registers the reconciler: it watches Guestbooks and
// the ConfigMaps they own.
func (r *GuestbookReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&webappv1.Guestbook{}).
		Owns(&corev1.ConfigMap{}).
		Named("guestbook").
		Complete(r)
}
