package gc_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/controllers/gc"
	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// thing is a kind with nothing but metadata, served namespaced (things)
// and cluster-scoped (clusterthings).
type thing struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
}

const (
	things        = "/apis/test.kapi.dev/v1/namespaces/%s/things"
	clusterThings = "/apis/test.kapi.dev/v1/clusterthings"
)

type env struct {
	t   *testing.T
	c   *apiclient.Client
	col *gc.Collector
}

func start(t *testing.T) *env {
	t.Helper()
	srv := apiserver.New(apiserver.Options{})
	srv.Register(apiserver.Kind{Group: "test.kapi.dev", Version: "v1", Kind: "Thing", Resource: "things", Namespaced: true,
		New: func() meta.Object { return &thing{} }})
	srv.Register(apiserver.Kind{Group: "test.kapi.dev", Version: "v1", Kind: "ClusterThing", Resource: "clusterthings",
		New: func() meta.Object { return &thing{} }})
	srv.Register(corev1.EventKind())
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	col := gc.New(srv, gc.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := col.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return &env{t: t, c: apiclient.New(srv), col: col}
}

func (e *env) create(path, name string, owners []meta.OwnerReference, finalizers ...string) *thing {
	e.t.Helper()
	obj := &thing{ObjectMeta: meta.ObjectMeta{Name: name, OwnerReferences: owners, Finalizers: finalizers}}
	b, err := e.c.Do(context.Background(), http.MethodPost, path, "application/json", mustJSON(obj))
	if err != nil {
		e.t.Fatalf("create %s/%s: %v", path, name, err)
	}
	out := &thing{}
	mustUnmarshal(b, out)
	return out
}

func (e *env) get(path string) (*thing, error) {
	var obj thing
	err := e.c.Get(context.Background(), path, &obj)
	return &obj, err
}

func (e *env) delete(path string, policy meta.DeletionPropagation) {
	e.t.Helper()
	var opts meta.DeleteOptions
	if policy != "" {
		opts.PropagationPolicy = &policy
	}
	if err := e.c.Delete(context.Background(), path, opts); err != nil {
		e.t.Fatalf("delete %s: %v", path, err)
	}
}

// eventually waits for cond, up to 10 seconds.
func (e *env) eventually(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (e *env) gone(path string) bool {
	_, err := e.get(path)
	return status.IsNotFound(err)
}

// settle waits until the collector has nothing left to do, then a little
// more, for checks that something did not happen.
func (e *env) settle() {
	e.t.Helper()
	e.eventually("the collector to settle", func() bool { return e.col.Pending() == 0 })
	time.Sleep(200 * time.Millisecond)
	e.eventually("the collector to settle", func() bool { return e.col.Pending() == 0 })
}

func ref(kind, name, uid string, block bool) meta.OwnerReference {
	r := meta.OwnerReference{APIVersion: "test.kapi.dev/v1", Kind: kind, Name: name, UID: uid}
	if block {
		r.BlockOwnerDeletion = &block
	}
	return r
}

func ownerRef(o *thing, kind string, block bool) meta.OwnerReference {
	return ref(kind, o.Name, o.UID, block)
}

func ns(name string) string { return fmt.Sprintf(things, name) }

// TestPropagationPolicies deletes a cluster-scoped owner of namespaced
// dependents with each policy.
func TestPropagationPolicies(t *testing.T) {
	e := start(t)
	cases := []struct {
		policy meta.DeletionPropagation
		orphan bool
	}{{"", false}, {meta.DeletePropagationBackground, false}, {meta.DeletePropagationForeground, false}, {meta.DeletePropagationOrphan, true}}
	for i, c := range cases {
		t.Run(string(c.policy), func(t *testing.T) {
			owner := e.create(clusterThings, fmt.Sprintf("owner-%d", i), nil)
			var deps []string
			for j := range 3 {
				d := e.create(ns("default"), fmt.Sprintf("dep-%d-%d", i, j), []meta.OwnerReference{ownerRef(owner, "ClusterThing", j == 0)})
				deps = append(deps, ns("default")+"/"+d.Name)
			}
			e.delete(clusterThings+"/"+owner.Name, c.policy)
			e.eventually("the owner to go", func() bool { return e.gone(clusterThings + "/" + owner.Name) })
			if c.orphan {
				e.settle()
				for _, p := range deps {
					d, err := e.get(p)
					if err != nil || len(d.OwnerReferences) != 0 {
						t.Errorf("orphaned %s: %v %+v", p, err, d.OwnerReferences)
					}
				}
				return
			}
			for _, p := range deps {
				e.eventually(p+" to be collected", func() bool { return e.gone(p) })
			}
		})
	}
}

// TestForegroundWaitsForBlockingDependents: the owner stays, marked, while
// a dependent with blockOwnerDeletion is still there (held by its own
// finalizer), and goes once it is gone.
func TestForegroundWaitsForBlockingDependents(t *testing.T) {
	e := start(t)
	owner := e.create(clusterThings, "fg", nil)
	blocking := e.create(ns("default"), "blocking", []meta.OwnerReference{ownerRef(owner, "ClusterThing", true)}, "example.com/hold")
	free := e.create(ns("default"), "free", []meta.OwnerReference{ownerRef(owner, "ClusterThing", false)})
	e.delete(clusterThings+"/fg", meta.DeletePropagationForeground)
	e.eventually("the non-blocking dependent to go", func() bool { return e.gone(ns("default") + "/free") })
	e.eventually("the blocking dependent to be deleted", func() bool {
		d, err := e.get(ns("default") + "/blocking")
		return err == nil && d.DeletionTimestamp != nil
	})
	e.settle()
	o, err := e.get(clusterThings + "/fg")
	if err != nil || o.DeletionTimestamp == nil || !slices.Contains(o.Finalizers, meta.FinalizerDeleteDependents) {
		t.Fatalf("owner while blocked: %v %+v", err, o.ObjectMeta)
	}
	if err := e.c.MergePatch(context.Background(), ns("default")+"/blocking", map[string]any{"metadata": map[string]any{"finalizers": nil}}); err != nil {
		t.Fatal(err)
	}
	e.eventually("the owner to go", func() bool { return e.gone(clusterThings + "/fg") })
	_, _ = blocking, free
}

// TestDanglingOwners: a reference to an owner that does not exist (no
// such name, another uid, or a namespaced owner in another namespace) is
// collected; one to an owner of a kind the server does not serve is kept.
func TestDanglingOwners(t *testing.T) {
	e := start(t)
	other := e.create(ns("other"), "owner", nil)
	e.create(ns("default"), "owner", nil) // same name, other namespace and uid
	cases := []struct {
		name string
		ref  meta.OwnerReference
		kept bool
	}{
		{"no-such-owner", ref("ClusterThing", "nobody", "uid-nobody", false), false},
		{"other-uid", ref("ClusterThing", "nobody2", "uid-2", false), false},
		{"other-namespace", ownerRef(other, "Thing", false), false},
		{"unserved-kind", meta.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", UID: "uid-d"}, true},
	}
	for _, c := range cases {
		e.create(ns("default"), c.name, []meta.OwnerReference{c.ref})
	}
	for _, c := range cases {
		if !c.kept {
			e.eventually(c.name+" to be collected", func() bool { return e.gone(ns("default") + "/" + c.name) })
		}
	}
	e.settle()
	if _, err := e.get(ns("default") + "/unserved-kind"); err != nil {
		t.Errorf("dependent of an unserved kind: %v", err)
	}
	if _, err := e.get(ns("other") + "/owner"); err != nil {
		t.Errorf("the owner in the other namespace: %v", err)
	}
}

// TestSeveralOwners: a dependent stays while one of its owners does, and
// loses its reference to the one that went.
func TestSeveralOwners(t *testing.T) {
	e := start(t)
	a, b := e.create(clusterThings, "a", nil), e.create(clusterThings, "b", nil)
	e.create(ns("default"), "shared", []meta.OwnerReference{ownerRef(a, "ClusterThing", false), ownerRef(b, "ClusterThing", false)})
	e.delete(clusterThings+"/a", "")
	e.eventually("the reference to a to go", func() bool {
		d, err := e.get(ns("default") + "/shared")
		return err == nil && len(d.OwnerReferences) == 1 && d.OwnerReferences[0].UID == b.UID
	})
	e.delete(clusterThings+"/b", "")
	e.eventually("the dependent to go with its last owner", func() bool { return e.gone(ns("default") + "/shared") })
}

// TestLoops: an object that owns itself is never collected, and deleting
// it, or one of two objects that own each other, in the foreground
// finishes.
func TestLoops(t *testing.T) {
	e := start(t)
	self := e.create(clusterThings, "self", nil)
	self.OwnerReferences = []meta.OwnerReference{ownerRef(self, "ClusterThing", true)}
	if err := e.c.Update(context.Background(), clusterThings+"/self", self); err != nil {
		t.Fatal(err)
	}
	e.settle()
	if _, err := e.get(clusterThings + "/self"); err != nil {
		t.Fatalf("an object owning itself was collected: %v", err)
	}
	e.delete(clusterThings+"/self", meta.DeletePropagationForeground)
	e.eventually("the self-owner to go", func() bool { return e.gone(clusterThings + "/self") })

	a := e.create(clusterThings, "a", nil)
	b := e.create(clusterThings, "b", []meta.OwnerReference{ownerRef(a, "ClusterThing", true)})
	a.OwnerReferences = []meta.OwnerReference{ownerRef(b, "ClusterThing", true)}
	if err := e.c.Update(context.Background(), clusterThings+"/a", a); err != nil {
		t.Fatal(err)
	}
	e.delete(clusterThings+"/a", meta.DeletePropagationForeground)
	e.eventually("both ends of the loop to go", func() bool {
		return e.gone(clusterThings+"/a") && e.gone(clusterThings+"/b")
	})
}
