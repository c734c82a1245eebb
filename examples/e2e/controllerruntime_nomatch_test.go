package e2e

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestControllerRuntimeUnservedKind reads a kind the server does not
// serve (kapi lists no core/v1 version when it serves no core kinds): the
// client's REST mapper answers with a no-match error from discovery, and
// no request for the object is made.
func TestControllerRuntimeUnservedKind(t *testing.T) {
	ts := startCRServer(t)
	c := newDirectClient(t, crConfig(ts.URL), newCRSchemeT(t))
	err := c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "x"}, &corev1.ConfigMap{})
	if !meta.IsNoMatchError(err) {
		t.Errorf("get of an unserved kind: %v", err)
	}
	if got := ts.seen("GET", "/api/v1/namespaces/default/configmaps/x"); len(got) != 0 {
		t.Errorf("requests for the object: %+v", got)
	}
}
