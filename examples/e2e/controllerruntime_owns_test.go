package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// configReconciler gives every Widget a ConfigMap it controls and records
// an event about it through both of the manager's recorders.
type configReconciler struct {
	client client.Client
	events events.EventRecorder
	legacy record.EventRecorder
}

func (r *configReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var w crWidget
	if err := r.client.Get(ctx, req.NamespacedName, &w); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !w.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: w.Name + "-config", Namespace: w.Namespace}}
	op, err := controllerutil.CreateOrUpdate(ctx, r.client, cm, func() error {
		cm.Data = map[string]string{"color": w.Spec.Color}
		return controllerutil.SetControllerReference(&w, cm, r.client.Scheme())
	})
	if err != nil {
		return ctrl.Result{}, err
	}
	if op == controllerutil.OperationResultCreated {
		r.events.Eventf(&w, cm, corev1.EventTypeNormal, "ConfigCreated", "Create", "created ConfigMap %s", cm.Name)
		r.legacy.Eventf(&w, corev1.EventTypeNormal, "ConfigCreated", "created ConfigMap %s", cm.Name)
	}
	return ctrl.Result{}, nil
}

// TestControllerRuntimeOwnsCollected runs a reconciler with Owns() on the
// example server: each Widget gets a ConfigMap it controls, a ConfigMap
// deleted by hand comes back, the ConfigMap is collected when its Widget
// is deleted, and the recorders' events are listed in both Event APIs.
func TestControllerRuntimeOwnsCollected(t *testing.T) {
	ts := startServer(t)
	cfg, scheme := crConfig(ts.URL), newCRSchemeT(t)
	mgr := newCRManager(t, cfg, scheme, nil)
	r := &configReconciler{client: mgr.GetClient(), events: mgr.GetEventRecorder("widget-config"),
		legacy: mgr.GetEventRecorderFor("widget-config")} //nolint:staticcheck // the core/v1 recorder is tested too
	if err := ctrl.NewControllerManagedBy(mgr).Named("widget-config").For(&crWidget{}).Owns(&corev1.ConfigMap{}).Complete(r); err != nil {
		t.Fatal(err)
	}
	runManager(t, mgr)
	direct := newDirectClient(t, cfg, scheme)
	ctx := context.Background()
	for i := range 3 {
		if err := direct.Create(ctx, newCRWidget(fmt.Sprintf("owner%d", i), 1, "red", nil)); err != nil {
			t.Fatal(err)
		}
	}
	getCM := func(name string) (*corev1.ConfigMap, error) {
		var cm corev1.ConfigMap
		err := direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, &cm)
		return &cm, err
	}
	for i := range 3 {
		name := fmt.Sprintf("owner%d-config", i)
		eventually(t, 10*time.Second, func() (bool, string) {
			cm, err := getCM(name)
			if err != nil {
				return false, err.Error()
			}
			refs := cm.OwnerReferences
			ok := len(refs) == 1 && refs[0].Kind == "Widget" && *refs[0].Controller && *refs[0].BlockOwnerDeletion
			return ok, fmt.Sprintf("%s owners %+v", name, refs)
		})
	}
	// Owns(): a child deleted by hand is made again.
	cm, _ := getCM("owner0-config")
	if err := direct.Delete(ctx, cm); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, func() (bool, string) {
		again, err := getCM("owner0-config")
		return err == nil && again.UID != cm.UID, fmt.Sprintf("recreated: %v", err)
	})
	// Deleting an owner collects its child.
	w, err := serverWidget(direct, "owner1")
	if err != nil {
		t.Fatal(err)
	}
	if err := direct.Delete(ctx, w); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, func() (bool, string) {
		_, err := getCM("owner1-config")
		return apierrors.IsNotFound(err), fmt.Sprintf("child of a deleted owner: %v", err)
	})
	// Foreground: the owner waits for its child.
	w, _ = serverWidget(direct, "owner2")
	if err := direct.Delete(ctx, w, client.PropagationPolicy(metav1.DeletePropagationForeground)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, func() (bool, string) {
		_, e1 := getCM("owner2-config")
		_, e2 := serverWidget(direct, "owner2")
		return apierrors.IsNotFound(e1) && apierrors.IsNotFound(e2), fmt.Sprintf("child %v owner %v", e1, e2)
	})

	cs := kubernetes.NewForConfigOrDie(cfg)
	eventually(t, 10*time.Second, func() (bool, string) {
		list, err := cs.CoreV1().Events("default").List(ctx, metav1.ListOptions{
			FieldSelector: fields.SelectorFromSet(fields.Set{"involvedObject.name": "owner0", "reason": "ConfigCreated"}).String()})
		if err != nil {
			return false, err.Error()
		}
		for _, e := range list.Items {
			if e.InvolvedObject.Kind == "Widget" && strings.Contains(e.Message, "owner0-config") && e.Source.Component == "widget-config" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("core events %+v", list.Items)
	})
	eventually(t, 10*time.Second, func() (bool, string) {
		list, err := cs.EventsV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, e := range list.Items {
			if e.Regarding.Name == "owner0" && e.Reason == "ConfigCreated" && e.ReportingController == "widget-config" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("events.k8s.io events %d", len(list.Items))
	})
	// Both APIs serve one storage, as kube-apiserver's do: each
	// recorder's event is listed through the other API too, mapped
	// field by field.
	eventually(t, 10*time.Second, func() (bool, string) {
		list, err := cs.CoreV1().Events("default").List(ctx, metav1.ListOptions{
			FieldSelector: fields.SelectorFromSet(fields.Set{"involvedObject.name": "owner0", "reportingComponent": "widget-config"}).String()})
		if err != nil {
			return false, err.Error()
		}
		for _, e := range list.Items {
			if e.Action == "Create" && e.Related != nil && e.Related.Name == "owner0-config" && e.Message == "created ConfigMap owner0-config" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("events.k8s.io's event among the core events: %+v", list.Items)
	})
	eventually(t, 10*time.Second, func() (bool, string) {
		list, err := cs.EventsV1().Events("default").List(ctx, metav1.ListOptions{
			FieldSelector: fields.SelectorFromSet(fields.Set{"regarding.name": "owner0", "reason": "ConfigCreated"}).String()})
		if err != nil {
			return false, err.Error()
		}
		for _, e := range list.Items {
			if e.DeprecatedSource.Component == "widget-config" && e.Note == "created ConfigMap owner0-config" && e.DeprecatedCount >= 1 {
				return true, ""
			}
		}
		return false, fmt.Sprintf("the core event among the events.k8s.io events: %+v", list.Items)
	})
}
