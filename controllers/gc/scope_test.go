package gc_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
)

// events lists the core/v1 Events of a namespace.
func (e *env) events(namespace string) []corev1.Event {
	e.t.Helper()
	var list struct{ Items []corev1.Event }
	if err := e.c.Get(context.Background(), "/api/v1/namespaces/"+namespace+"/events", &list); err != nil {
		e.t.Fatal(err)
	}
	return list.Items
}

// TestClusterScopedDependentOfNamespacedOwner: a cluster-scoped object
// naming a namespaced owner is never collected, as kube's collector
// leaves it: whether that owner exists, in some namespace, or not, is
// deleted, or sits next to an owner that is gone. When the graph holds
// the owner, a Warning Event OwnerRefInvalidNamespace is recorded on the
// dependent, in namespace default, as kube's collector records it.
func TestClusterScopedDependentOfNamespacedOwner(t *testing.T) {
	e := start(t)
	owner := e.create(ns("a"), "owner", nil)
	bad := e.create(clusterThings, "bad", []meta.OwnerReference{ownerRef(owner, "Thing", false)})
	e.create(clusterThings, "bad-missing", []meta.OwnerReference{ref("Thing", "nobody", "uid-nobody", false)})
	e.create(clusterThings, "bad-mixed", []meta.OwnerReference{ref("ClusterThing", "gone", "uid-gone", false), ownerRef(owner, "Thing", false)})
	var evs []corev1.Event
	e.eventually("the events", func() bool { evs = e.events("default"); return len(evs) == 2 })
	byName := map[string]corev1.Event{}
	for _, ev := range evs {
		byName[ev.InvolvedObject.Name] = ev
	}
	ev := byName["bad"]
	want := corev1.Event{
		InvolvedObject: corev1.ObjectReference{Kind: "ClusterThing", APIVersion: "test.kapi.dev/v1", Name: "bad", UID: bad.UID},
		Reason:         "OwnerRefInvalidNamespace", Type: "Warning", Count: 1,
		Message:             fmt.Sprintf(`ownerRef [test.kapi.dev/v1/Thing, namespace: , name: owner, uid: %s] does not exist in namespace ""`, owner.UID),
		Source:              corev1.EventSource{Component: "garbage-collector-controller"},
		ReportingController: "garbage-collector-controller",
	}
	got := corev1.Event{InvolvedObject: ev.InvolvedObject, Reason: ev.Reason, Type: ev.Type, Count: ev.Count, Message: ev.Message,
		Source: ev.Source, ReportingController: ev.ReportingController, ReportingInstance: ev.ReportingInstance}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("event (-want +got):\n%s", diff)
	}
	if ev.FirstTimestamp.IsZero() || ev.LastTimestamp != ev.FirstTimestamp || ev.Namespace != "default" || ev.Generation != 0 {
		t.Errorf("event metadata and times: %+v %v %v", ev.ObjectMeta, ev.FirstTimestamp, ev.LastTimestamp)
	}
	if _, ok := byName["bad-mixed"]; !ok {
		t.Errorf("no event on bad-mixed: %+v", evs)
	}
	e.delete(ns("a")+"/owner", "")
	e.settle()
	for _, name := range []string{"bad", "bad-missing", "bad-mixed"} {
		d, err := e.get(clusterThings + "/" + name)
		if err != nil {
			t.Errorf("%s was collected: %v", name, err)
		} else if len(d.OwnerReferences) == 0 {
			t.Errorf("%s lost its owner references", name)
		}
	}
}

// TestDependentInAnotherNamespace: an object naming as its owner, by uid,
// an object that lives in another namespace is collected, as kube's
// collector collects it (the owner is looked for in the dependent's
// namespace, where it is not), and a Warning Event
// OwnerRefInvalidNamespace is recorded on it in its namespace.
func TestDependentInAnotherNamespace(t *testing.T) {
	e := start(t)
	owner := e.create(ns("b"), "owner", nil)
	dep := e.create(ns("a"), "dep", []meta.OwnerReference{ownerRef(owner, "Thing", false)})
	e.eventually("the dependent to be collected", func() bool { return e.gone(ns("a") + "/dep") })
	var evs []corev1.Event
	e.eventually("the event", func() bool { evs = e.events("a"); return len(evs) == 1 })
	ev := evs[0]
	want := corev1.ObjectReference{Kind: "Thing", APIVersion: "test.kapi.dev/v1", Namespace: "a", Name: "dep", UID: dep.UID}
	msg := fmt.Sprintf(`ownerRef [test.kapi.dev/v1/Thing, namespace: a, name: owner, uid: %s] does not exist in namespace "a"`, owner.UID)
	if ev.InvolvedObject != want || ev.Message != msg || ev.Reason != "OwnerRefInvalidNamespace" || ev.Type != "Warning" {
		t.Errorf("event %+v", ev)
	}
	if _, err := e.get(ns("b") + "/owner"); err != nil {
		t.Errorf("the owner: %v", err)
	}
}
