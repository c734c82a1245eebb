package e2e

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/meta"
)

// TestControllerRuntimeEventsNotServed records Events from a reconciler,
// through both the events.k8s.io/v1 and the core/v1 recorder, against a
// server that serves neither: each post is a 404 the broadcaster only
// logs, and reconciling goes on.
func TestControllerRuntimeEventsNotServed(t *testing.T) {
	ts := startCRServer(t)
	cfg, scheme := crConfig(ts.URL), newCRSchemeT(t)
	mgr := newCRManager(t, cfg, scheme, nil)
	r := &widgetReconciler{
		client:   mgr.GetClient(),
		recorder: mgr.GetEventRecorder("widgets-events"),
		legacy:   mgr.GetEventRecorderFor("widgets-events"), //nolint:staticcheck // the core/v1 path is what is tested
	}
	if err := ctrl.NewControllerManagedBy(mgr).Named("widgets-events").For(&crWidget{}).Complete(r); err != nil {
		t.Fatal(err)
	}
	runManager(t, mgr)
	direct := newDirectClient(t, cfg, scheme)
	ctx := context.Background()
	for i := range 3 {
		if err := direct.Create(ctx, newCRWidget(fmt.Sprintf("e%d", i), int32(i+1), "red", nil)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		eventually(t, 10*time.Second, func() (bool, string) {
			w, err := serverWidget(direct, fmt.Sprintf("e%d", i))
			if err != nil {
				return false, err.Error()
			}
			return w.Status.ReadyReplicas == int32(i+1), fmt.Sprintf("e%d status %+v", i, w.Status)
		})
	}
	for _, path := range []string{
		"/apis/events.k8s.io/v1/namespaces/default/events",
		"/api/v1/namespaces/default/events",
	} {
		eventually(t, 10*time.Second, func() (bool, string) {
			return len(ts.seen("POST", path)) > 0, "no POST " + path
		})
		for _, req := range ts.seen("POST", path) {
			if req.code != http.StatusNotFound {
				t.Errorf("POST %s: %d", path, req.code)
			}
		}
	}
	// The server may show a status before the reconciler has read the
	// answer to its update and counted it.
	eventually(t, 10*time.Second, func() (bool, string) {
		n := r.statuses.Load()
		return n >= 3, fmt.Sprintf("%d status updates, want at least 3", n)
	})
}

// TestControllerRuntimeEventsServedProtobuf serves events.k8s.io/v1 Events
// (as unstructured objects, as a host might): client-go's events client
// posts them as protobuf, which kapi does not decode, so each post is a
// 415 that the broadcaster logs while reconciling goes on.
func TestControllerRuntimeEventsServedProtobuf(t *testing.T) {
	ts := startCRServer(t, apiserver.Kind{
		Group: "events.k8s.io", Version: "v1", Kind: "Event", Resource: "events", Namespaced: true,
		New: func() meta.Object { return &meta.Unstructured{} },
	})
	cfg, scheme := crConfig(ts.URL), newCRSchemeT(t)
	mgr := newCRManager(t, cfg, scheme, nil)
	r := &widgetReconciler{client: mgr.GetClient(), recorder: mgr.GetEventRecorder("widgets-events-pb")}
	if err := ctrl.NewControllerManagedBy(mgr).Named("widgets-events-pb").For(&crWidget{}).Complete(r); err != nil {
		t.Fatal(err)
	}
	runManager(t, mgr)
	direct := newDirectClient(t, cfg, scheme)
	if err := direct.Create(context.Background(), newCRWidget("e", 2, "red", nil)); err != nil {
		t.Fatal(err)
	}
	path := "/apis/events.k8s.io/v1/namespaces/default/events"
	eventually(t, 10*time.Second, func() (bool, string) {
		return len(ts.seen("POST", path)) > 0, "no POST " + path
	})
	for _, req := range ts.seen("POST", path) {
		if req.code != http.StatusUnsupportedMediaType || req.contentType != "application/vnd.kubernetes.protobuf" {
			t.Errorf("event post: %+v", req)
		}
	}
	eventually(t, 10*time.Second, func() (bool, string) {
		w, err := serverWidget(direct, "e")
		if err != nil {
			return false, err.Error()
		}
		return w.Status.ReadyReplicas == 2, fmt.Sprintf("status %+v", w.Status)
	})
}
