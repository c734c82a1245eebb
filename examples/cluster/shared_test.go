package cluster

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestTwoServersOneEtcd runs two Widget servers on one etcd: writes
// through one reach the other's reads and watches, optimistic concurrency
// holds across them, and their lists agree.
func TestTwoServersOneEtcd(t *testing.T) {
	etcd := startCluster(t, 1)
	a := startKapi(t, etcd.endpoints(), 0)
	b := startKapi(t, etcd.endpoints(), 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fb := newFollower(b.url)
	go fb.run(ctx)
	fb.waitFor(t, 1, 10*time.Second) // B's watch is open

	// A write through A is seen by a watch through B.
	created := must(t, "POST", a.url+widgets, widget("w1", "", 1), http.StatusCreated)
	if got := fb.waitFor(t, created.rv(), 10*time.Second); got["w1"] != created.rv() {
		t.Fatalf("B's watch holds %v, want w1 at %d", got, created.rv())
	}
	// And by a consistent read through B.
	if got := must(t, "GET", b.url+widgets+"/w1", "", http.StatusOK); got.rv() != created.rv() {
		t.Fatalf("GET through B: resourceVersion %d, want %d", got.rv(), created.rv())
	}

	// An update through A makes B's update from the same resourceVersion
	// stale: 409 Conflict.
	rv := created.Metadata.ResourceVersion
	updated := must(t, "PUT", a.url+widgets+"/w1", widget("w1", rv, 2), http.StatusOK)
	conflict := must(t, "PUT", b.url+widgets+"/w1", widget("w1", rv, 3), http.StatusConflict)
	if conflict.Reason != "Conflict" {
		t.Errorf("stale update through B: %+v", conflict)
	}
	// B's update from the new resourceVersion succeeds, and A sees it.
	last := must(t, "PUT", b.url+widgets+"/w1", widget("w1", updated.Metadata.ResourceVersion, 3), http.StatusOK)
	if got := must(t, "GET", a.url+widgets+"/w1", "", http.StatusOK); got.rv() != last.rv() {
		t.Fatalf("GET through A after B's update: resourceVersion %d, want %d", got.rv(), last.rv())
	}
	// The name is taken for both.
	must(t, "POST", b.url+widgets, widget("w1", "", 1), http.StatusConflict)

	// Writes through both, then consistent lists through both agree.
	for i := range 10 {
		srv := a
		if i%2 == 1 {
			srv = b
		}
		must(t, "POST", srv.url+widgets, widget(fmt.Sprintf("x%d", i), "", 1), http.StatusCreated)
	}
	must(t, "DELETE", b.url+widgets+"/x0", "", http.StatusOK)
	la := must(t, "GET", a.url+widgets, "", http.StatusOK)
	lb := must(t, "GET", b.url+widgets, "", http.StatusOK)
	if va, vb := versions(la), versions(lb); len(va) != 10 || fmt.Sprint(va) != fmt.Sprint(vb) {
		t.Fatalf("lists disagree:\nA %v\nB %v", va, vb)
	}
	if la.Metadata.ResourceVersion != lb.Metadata.ResourceVersion {
		t.Errorf("list resourceVersions: A %s, B %s", la.Metadata.ResourceVersion, lb.Metadata.ResourceVersion)
	}
	// B's watch has every change.
	if got := fb.waitFor(t, la.rv(), 10*time.Second); fmt.Sprint(got) != fmt.Sprint(versions(la)) {
		t.Fatalf("B's watch holds %v, want %v", got, versions(la))
	}
	if p := fb.problems(); p != nil {
		t.Errorf("B's watch: %v", p)
	}

	// A watcher that comes back to a new server with a resourceVersion
	// older than its watch cache, but still in etcd's history, resumes
	// from etcd's history: no 410 and no list.
	c := startKapi(t, etcd.endpoints(), 0)
	fc := newFollower(c.url)
	fc.rv, fc.objs = created.rv(), map[string]int64{"w1": created.rv()}
	go fc.run(ctx)
	if got := fc.waitFor(t, la.rv(), 10*time.Second); fmt.Sprint(got) != fmt.Sprint(versions(la)) {
		t.Fatalf("the returning watcher holds %v, want %v", got, versions(la))
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.lists != 0 || fc.faults != nil {
		t.Errorf("the returning watcher listed %d times (want 0: resumed from etcd's history), faults %v", fc.lists, fc.faults)
	}
}
