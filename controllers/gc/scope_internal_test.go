package gc

import (
	"net/http"
	"testing"

	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/meta"
)

// TestReportInvalidNamespacesEitherOrder: the Warning on a dependent
// naming an owner in another namespace is recorded once, whichever of
// the two the graph sees first, as kube's graph builder records it; a
// later change of the dependent that keeps the reference records no
// other, and a dependent in the owner's namespace none.
func TestReportInvalidNamespacesEitherOrder(t *testing.T) {
	things := &apiclient.Resource{Group: "test.kapi.dev", Version: "v1", Kind: "Thing", Resource: "things", Namespaced: true}
	ref := meta.OwnerReference{APIVersion: "test.kapi.dev/v1", Kind: "Thing", Name: "owner", UID: "0f0f0f0f-0000-4000-8000-000000000001"}
	obj := func(ns, name, uid, rv string, owners ...meta.OwnerReference) *apiclient.Object {
		return &apiclient.Object{Metadata: meta.ObjectMeta{Namespace: ns, Name: name, UID: uid, ResourceVersion: rv, OwnerReferences: owners}}
	}
	owner := obj("b", "owner", ref.UID, "1")
	dep := obj("a", "dep", "0f0f0f0f-0000-4000-8000-000000000002", "2", ref)
	depAgain := obj("a", "dep", "0f0f0f0f-0000-4000-8000-000000000002", "3", ref)
	sameNS := obj("b", "fine", "0f0f0f0f-0000-4000-8000-000000000003", "4", ref)
	for _, tc := range []struct {
		name  string
		order []*apiclient.Object
	}{
		{"owner first", []*apiclient.Object{owner, dep, depAgain, sameNS}},
		{"dependent first", []*apiclient.Object{dep, sameNS, owner, depAgain}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(http.NotFoundHandler(), Options{})
			observe := c.observe(things) // not synced: the graph only
			for _, o := range tc.order {
				observe("ADDED", o)
			}
			if n := len(c.events.queue); n != 1 {
				t.Fatalf("%d events queued, want 1", n)
			}
			ev := <-c.events.queue
			if ev.InvolvedObject.Name != "dep" || ev.Namespace != "a" || ev.Reason != reasonInvalidNamespace {
				t.Errorf("event %+v", ev)
			}
		})
	}
}
