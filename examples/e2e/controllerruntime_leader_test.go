package e2e

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	kcoordinationv1 "github.com/kapi-dev/kapi/kinds/coordinationv1"
)

// electedManager is a manager under leader election running a Widget
// controller, stoppable on its own.
type electedManager struct {
	mgr  manager.Manager
	r    *widgetReconciler
	stop context.CancelFunc
	done chan struct{} // closed when Start has returned, with err set
	err  error
}

// startElectedManager starts a manager named name under leader election;
// leaseCfg, when not nil, is the rest.Config of its Lease client.
func startElectedManager(t *testing.T, url string, name string, leaseCfg *rest.Config) *electedManager {
	t.Helper()
	cfg, scheme := crConfig(url), newCRSchemeT(t)
	mgr := newCRManager(t, cfg, scheme, func(o *manager.Options) {
		o.LeaderElectionConfig = leaseCfg
		o.LeaderElection = true
		o.LeaderElectionID = "widgets-controller"
		o.LeaderElectionNamespace = "default"
		o.LeaderElectionReleaseOnCancel = true
		o.LeaseDuration = ptr.To(2 * time.Second)
		o.RenewDeadline = ptr.To(1 * time.Second)
		o.RetryPeriod = ptr.To(100 * time.Millisecond)
	})
	r := &widgetReconciler{client: mgr.GetClient()}
	if err := ctrl.NewControllerManagedBy(mgr).Named(name).For(&crWidget{}).Complete(r); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &electedManager{mgr: mgr, r: r, stop: cancel, done: make(chan struct{})}
	go func() {
		e.err = mgr.Start(ctx)
		close(e.done)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-e.done:
		case <-time.After(30 * time.Second):
			t.Errorf("manager %s did not stop", name)
		}
	})
	return e
}

// elected reports whether the manager has won the election.
func (e *electedManager) elected() bool {
	select {
	case <-e.mgr.Elected():
		return true
	default:
		return false
	}
}

// TestControllerRuntimeLeaderElection runs two managers with leader
// election over a Lease served by kapi: one leads and reconciles, the other
// waits; when the leader stops and releases the Lease the other takes over.
func TestControllerRuntimeLeaderElection(t *testing.T) {
	ts := startCRServer(t, kcoordinationv1.LeaseKind())
	direct := newDirectClient(t, crConfig(ts.URL), newCRSchemeT(t))
	ctx := context.Background()
	// The default configuration: client-go's Lease client speaks
	// protobuf.
	a := startElectedManager(t, ts.URL, "widgets-a", nil)
	b := startElectedManager(t, ts.URL, "widgets-b", nil)

	var leader, follower *electedManager
	eventually(t, 15*time.Second, func() (bool, string) {
		switch {
		case a.elected() && b.elected():
			t.Fatal("both managers elected")
		case a.elected():
			leader, follower = a, b
		case b.elected():
			leader, follower = b, a
		}
		return leader != nil, "no manager elected"
	})
	leases := "/apis/coordination.k8s.io/v1/namespaces/default/leases"
	var created bool
	for _, r := range ts.seen("POST", leases) {
		if r.contentType != "application/vnd.kubernetes.protobuf" {
			t.Errorf("lease create in %q, want protobuf", r.contentType)
		}
		created = created || r.code == http.StatusCreated
	}
	if !created {
		t.Errorf("no lease create answered 201: %+v", ts.seen("POST", leases))
	}
	var l coordinationv1.Lease
	if err := direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: "widgets-controller"}, &l); err != nil {
		t.Fatal(err)
	}
	if ptr.Deref(l.Spec.HolderIdentity, "") == "" || l.Spec.RenewTime == nil || ptr.Deref(l.Spec.LeaseDurationSeconds, 0) != 2 {
		t.Errorf("lease: %+v", l.Spec)
	}

	if err := direct.Create(ctx, newCRWidget("le1", 2, "red", nil)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, func() (bool, string) {
		w, err := serverWidget(direct, "le1")
		if err != nil {
			return false, err.Error()
		}
		return w.Status.ReadyReplicas == 2, fmt.Sprintf("status %+v", w.Status)
	})
	if leader.r.reconciles.Load() == 0 || follower.r.reconciles.Load() != 0 {
		t.Errorf("reconciles: leader %d, follower %d", leader.r.reconciles.Load(), follower.r.reconciles.Load())
	}

	holder := ptr.Deref(l.Spec.HolderIdentity, "")
	leader.stop()
	select {
	case <-leader.done:
		if leader.err != nil {
			t.Errorf("leader stopped with %v", leader.err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("leader did not stop")
	}
	eventually(t, 15*time.Second, func() (bool, string) { return follower.elected(), "follower not elected" })
	if err := direct.Get(ctx, client.ObjectKey{Namespace: "default", Name: "widgets-controller"}, &l); err != nil {
		t.Fatal(err)
	}
	if h := ptr.Deref(l.Spec.HolderIdentity, ""); h == "" || h == holder || ptr.Deref(l.Spec.LeaseTransitions, 0) < 1 {
		t.Errorf("lease after hand-over: holder %q (was %q), transitions %v", h, holder, l.Spec.LeaseTransitions)
	}
	if err := direct.Create(ctx, newCRWidget("le2", 4, "red", nil)); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, func() (bool, string) {
		w, err := serverWidget(direct, "le2")
		if err != nil {
			return false, err.Error()
		}
		return w.Status.ReadyReplicas == 4, fmt.Sprintf("status %+v", w.Status)
	})
}
