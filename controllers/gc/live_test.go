package gc_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/controllers/gc"
	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// Kinds installed after the collector started are collected; kinds
// uninstalled stop being mirrored without stopping the collector.
func TestCollectsInstalledKinds(t *testing.T) {
	srv := apiserver.New(apiserver.Options{})
	srv.Register(apiserver.Kind{Group: "test.kapi.dev", Version: "v1", Kind: "Thing", Resource: "things", Namespaced: true,
		New: func() meta.Object { return &thing{} }})
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	col := gc.New(srv, gc.Options{DiscoveryInterval: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- col.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	e := &env{t: t, c: apiclient.New(srv), col: col}
	gizmo := apiserver.Kind{Group: "live.kapi.dev", Version: "v1", Kind: "Gizmo", Resource: "gizmos", Namespaced: true,
		New: func() meta.Object { return &meta.Unstructured{} }}
	const gizmos = "/apis/live.kapi.dev/v1/namespaces/default/gizmos"
	for round := range 2 {
		if err := srv.Install(gizmo); err != nil {
			t.Fatal(err)
		}
		waitMirrored(t, col, true)
		owner := e.create(fmt.Sprintf(things, "default"), fmt.Sprintf("owner-%d", round), nil)
		ref := []meta.OwnerReference{{APIVersion: "test.kapi.dev/v1", Kind: "Thing", Name: owner.Name, UID: owner.UID}}
		e.create(gizmos, fmt.Sprintf("dep-%d", round), ref)
		// A gizmo owning a thing: owners of installed kinds are checked too.
		g := e.create(gizmos, fmt.Sprintf("owner-%d", round), nil)
		e.create(fmt.Sprintf(things, "default"), fmt.Sprintf("dep-%d", round),
			[]meta.OwnerReference{{APIVersion: "live.kapi.dev/v1", Kind: "Gizmo", Name: g.Name, UID: g.UID}})
		e.delete(fmt.Sprintf(things, "default")+"/"+owner.Name, meta.DeletePropagationBackground)
		e.delete(gizmos+"/"+g.Name, meta.DeletePropagationBackground)
		waitGone(t, e, gizmos+fmt.Sprintf("/dep-%d", round))
		waitGone(t, e, fmt.Sprintf(things, "default")+fmt.Sprintf("/dep-%d", round))
		if err := srv.Uninstall("live.kapi.dev", "gizmos"); err != nil {
			t.Fatal(err)
		}
		waitMirrored(t, col, false)
	}
}

func waitMirrored(t *testing.T, col *gc.Collector, want bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for col.Mirrors("live.kapi.dev", "gizmos") != want {
		if time.Now().After(deadline) {
			t.Fatalf("gizmos mirrored: %v, want %v", !want, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func waitGone(t *testing.T, e *env, path string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		err := e.c.Get(context.Background(), path, &thing{})
		if status.IsNotFound(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not collected: %v", path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
