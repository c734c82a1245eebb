package apiclient_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/controllers/internal/apiclient"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

func TestClientAndReflector(t *testing.T) {
	srv := apiserver.New(apiserver.Options{}).Register(corev1.ConfigMapKind())
	defer srv.Close()
	c := apiclient.New(srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	path := "/api/v1/namespaces/default/configmaps"
	if err := c.Create(ctx, path, &corev1.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "a"}}); err != nil {
		t.Fatal(err)
	}
	err := c.Create(ctx, path, &corev1.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "a"}})
	if !status.IsAlreadyExists(err) {
		t.Fatalf("second create: %v, want AlreadyExists", err)
	}
	var mu sync.Mutex
	var seen []string
	rf := c.NewReflector(path, func(typ string, obj *apiclient.Object) {
		mu.Lock()
		seen = append(seen, typ+" "+obj.Metadata.Name)
		mu.Unlock()
	}, nil)
	go rf.Run(ctx)
	<-rf.Synced()
	if err := c.Create(ctx, path, &corev1.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "b"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, path+"/a", meta.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := rf.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		got := append([]string(nil), seen...)
		mu.Unlock()
		if len(got) == 3 {
			// The re-list and the watch race: b's addition and a's
			// deletion may come in either order, after a's addition.
			if got[0] != "ADDED a" || !slices.Contains(got, "ADDED b") || !slices.Contains(got, "DELETED a") {
				t.Errorf("events %v", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("events %v", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestResources(t *testing.T) {
	srv := apiserver.New(apiserver.Options{})
	for _, k := range corev1.Kinds() {
		srv.Register(k)
	}
	defer srv.Close()
	res, err := apiclient.New(srv).Resources(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]apiclient.Resource{}
	for _, r := range res {
		byName[r.Resource] = r
	}
	ns, cm := byName["namespaces"], byName["configmaps"]
	if ns.Namespaced || !cm.Namespaced || cm.Kind != "ConfigMap" || !cm.Can("list", "watch", "delete", "deletecollection") {
		t.Errorf("resources %+v", byName)
	}
	if cm.ObjectPath("x", "y") != "/api/v1/namespaces/x/configmaps/y" || ns.ObjectPath("", "x") != "/api/v1/namespaces/x" {
		t.Errorf("paths %s %s", cm.ObjectPath("x", "y"), ns.ObjectPath("", "x"))
	}
}

// TestRelistTellsObjectsApartByUID: an object deleted and created again
// under its name while the Reflector did not watch is two objects to a
// re-list: the old one's deletion, then the new one's addition, so that
// a handler keeping objects by name ends with the new one.
func TestRelistTellsObjectsApartByUID(t *testing.T) {
	srv := apiserver.New(apiserver.Options{}).Register(corev1.ConfigMapKind())
	defer srv.Close()
	c := apiclient.New(srv)
	ctx := context.Background()
	path := "/api/v1/namespaces/default/configmaps"
	if err := c.Create(ctx, path, &corev1.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "a"}}); err != nil {
		t.Fatal(err)
	}
	var seen []string
	byName := map[string]string{} // name → uid
	rf := c.NewReflector(path, func(typ string, obj *apiclient.Object) {
		seen = append(seen, typ+" "+obj.Metadata.UID)
		if typ == "DELETED" {
			delete(byName, obj.Metadata.Name)
		} else {
			byName[obj.Metadata.Name] = obj.Metadata.UID
		}
	}, nil)
	if err := rf.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	first := byName["a"]
	if err := c.Delete(ctx, path+"/a", meta.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, path, &corev1.ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "a"}}); err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := c.Get(ctx, path+"/a", &cm); err != nil {
		t.Fatal(err)
	}
	if err := rf.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	want := []string{"ADDED " + first, "DELETED " + first, "ADDED " + cm.UID}
	if !slices.Equal(seen, want) {
		t.Errorf("handler calls %q, want %q", seen, want)
	}
	if byName["a"] != cm.UID {
		t.Errorf("the handler's a has uid %q, want the new object's %q", byName["a"], cm.UID)
	}
}

// TestPreferredResources: one version of each group and resource is
// kept, the group's preferred one where it serves the resource, as
// client-go's ServerPreferredResources keeps; so the namespace
// controller counts an object of a kind served in two versions once.
func TestPreferredResources(t *testing.T) {
	r := func(group, version, resource string, preferred bool) apiclient.Resource {
		return apiclient.Resource{Group: group, Version: version, Resource: resource, Preferred: preferred}
	}
	in := []apiclient.Resource{
		r("", "v1", "configmaps", true),
		r("a", "v1beta1", "things", false), r("a", "v1beta1", "olds", false),
		r("a", "v1", "things", true),
		r("b", "v2", "gadgets", false), r("b", "v1", "gadgets", false),
	}
	want := []apiclient.Resource{
		r("", "v1", "configmaps", true),
		r("a", "v1", "things", true), r("a", "v1beta1", "olds", false),
		r("b", "v2", "gadgets", false),
	}
	if diff := cmp.Diff(want, apiclient.PreferredResources(in)); diff != "" {
		t.Errorf("preferred resources (-want +got):\n%s", diff)
	}
}
