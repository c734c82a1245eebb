package e2e

import (
	"context"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

const widgetFinalizer = "stable.example.com/cleanup"

// widgetReconciler is the controller a user writes for Widgets: it holds a
// finalizer on every live Widget, reports spec.replicas as ready through
// the status subresource and lets a deleted Widget go once it has cleaned
// up (here: counted it).
type widgetReconciler struct {
	client   client.Client
	recorder events.EventRecorder // optional, events.k8s.io/v1
	legacy   record.EventRecorder // optional, core/v1

	reconciles atomic.Int64
	finalized  atomic.Int64
	statuses   atomic.Int64
}

func (r *widgetReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.reconciles.Add(1)
	var w crWidget
	if err := r.client.Get(ctx, req.NamespacedName, &w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !w.DeletionTimestamp.IsZero() {
		if !controllerutil.RemoveFinalizer(&w, widgetFinalizer) {
			return reconcile.Result{}, nil
		}
		if err := r.client.Update(ctx, &w); err != nil {
			return reconcile.Result{}, err
		}
		r.finalized.Add(1)
		return reconcile.Result{}, nil
	}
	if controllerutil.AddFinalizer(&w, widgetFinalizer) {
		// Go on with the updated object: a controller filtering on
		// generation changes never sees this update come back.
		if err := r.client.Update(ctx, &w); err != nil {
			return reconcile.Result{}, err
		}
	}
	want := int32(1)
	if w.Spec.Replicas != nil {
		want = *w.Spec.Replicas
	}
	if w.Status.ReadyReplicas == want && w.Status.ObservedGeneration == w.Generation {
		return reconcile.Result{}, nil
	}
	w.Status.ReadyReplicas, w.Status.ObservedGeneration = want, w.Generation
	if err := r.client.Status().Update(ctx, &w); err != nil {
		return reconcile.Result{}, err
	}
	r.statuses.Add(1)
	if r.recorder != nil {
		r.recorder.Eventf(&w, nil, corev1.EventTypeNormal, "Ready", "Reconcile", "%d replicas ready", want)
	}
	if r.legacy != nil {
		r.legacy.Eventf(&w, corev1.EventTypeNormal, "Ready", "%d replicas ready", want)
	}
	return reconcile.Result{}, nil
}
