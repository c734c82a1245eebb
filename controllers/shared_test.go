package controllers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/controllers"
	"github.com/kapi-dev/kapi/controllers/leader"
	"github.com/kapi-dev/kapi/controllers/namespace"
	"github.com/kapi-dev/kapi/kinds/coordinationv1"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/storage/memory"
)

// TestServersShareOneCollector runs two servers on one store: one holds
// the Lease and collects; when it stops, the other takes over and
// collects.
func TestServersShareOneCollector(t *testing.T) {
	store := memory.New(memory.Options{})
	type server struct {
		srv    *apiserver.Server
		cancel context.CancelFunc
		done   chan struct{}
	}
	servers := map[string]*server{}
	for _, id := range []string{"s1", "s2"} {
		lc := namespace.NewLifecycle()
		srv := apiserver.New(apiserver.Options{Storage: store, MutatingAdmission: []apiserver.AdmissionFunc{lc.Admit}})
		for _, k := range corev1.Kinds() {
			srv.Register(k)
		}
		srv.Register(coordinationv1.LeaseKind())
		ctx, cancel := context.WithCancel(context.Background())
		s := &server{srv: srv, cancel: cancel, done: make(chan struct{})}
		servers[id] = s
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); lc.Run(ctx, srv) }()
		go func() {
			defer wg.Done()
			opts := controllers.Options{Election: leader.Options{Identity: id, LeaseDuration: time.Second, RetryPeriod: 50 * time.Millisecond}}
			if err := controllers.Run(ctx, srv, opts); err != nil {
				t.Error(err)
			}
		}()
		go func() { wg.Wait(); close(s.done) }()
		t.Cleanup(func() { cancel(); <-s.done; srv.Close() })
	}
	live := func() []*apiserver.Server {
		var out []*apiserver.Server
		for _, id := range []string{"s1", "s2"} {
			if s := servers[id]; s != nil {
				out = append(out, s.srv)
			}
		}
		return out
	}
	holder := func() string {
		var lease coordinationv1.Lease
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if err := getJSON(live()[0], "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kapi-controllers", &lease); err == nil &&
				lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "" && servers[*lease.Spec.HolderIdentity] != nil {
				return *lease.Spec.HolderIdentity
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatal("nobody holds the lease")
		return ""
	}
	collects := func(name string) {
		t.Helper()
		srvs := live()
		a, b := srvs[0], srvs[len(srvs)-1]
		owner := post(t, a, `{"metadata":{"name":"owner-`+name+`"}}`)
		post(t, b, `{"metadata":{"name":"dep-`+name+`","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner-`+name+`","uid":"`+owner+`"}]}}`)
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, httptest.NewRequest(http.MethodDelete, "/api/v1/namespaces/default/configmaps/owner-"+name, nil))
		deadline := time.Now().Add(10 * time.Second)
		for getJSON(b, "/api/v1/namespaces/default/configmaps/dep-"+name, &struct{}{}) == nil {
			if time.Now().After(deadline) {
				t.Fatalf("dep-%s not collected", name)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	first := holder()
	collects("one")
	servers[first].cancel()
	<-servers[first].done
	delete(servers, first)
	if second := holder(); second == first {
		t.Fatalf("%s still holds the lease after stopping", first)
	}
	collects("two")
}

func post(t *testing.T, h http.Handler, body string) string {
	t.Helper()
	var out struct{ Metadata struct{ UID string } }
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/configmaps", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	if err := jsonUnmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return out.Metadata.UID
}
