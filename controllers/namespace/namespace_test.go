package namespace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/apiserver"
	"github.com/kapi-dev/kapi/controllers/namespace"
	"github.com/kapi-dev/kapi/kinds/corev1"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
)

// env is a server with Namespaces, ConfigMaps and Secrets, the lifecycle
// check and, when asked, the namespace controller.
type env struct {
	t   *testing.T
	srv *apiserver.Server
}

func start(t *testing.T, controller bool, kinds ...apiserver.Kind) *env {
	t.Helper()
	lc := namespace.NewLifecycle()
	srv := apiserver.New(apiserver.Options{MutatingAdmission: []apiserver.AdmissionFunc{lc.Admit}})
	srv.Register(corev1.NamespaceKind()).Register(corev1.ConfigMapKind()).Register(corev1.SecretKind())
	for _, k := range kinds {
		srv.Register(k)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait(); srv.Close() })
	wg.Add(1)
	go func() { defer wg.Done(); lc.Run(ctx, srv) }()
	if err := namespace.EnsureSystem(ctx, srv); err != nil {
		t.Fatal(err)
	}
	if controller {
		wg.Add(1)
		go func() { defer wg.Done(); namespace.New(srv, namespace.Options{}).Run(ctx) }()
	}
	return &env{t: t, srv: srv}
}

type reply struct {
	code int
	body []byte
}

func (e *env) do(method, path, body string) reply {
	e.t.Helper()
	req, _ := http.NewRequest(method, "http://kapi"+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := &recorder{header: http.Header{}, code: 200}
	e.srv.ServeHTTP(rec, req)
	return reply{rec.code, rec.body.Bytes()}
}

func (e *env) status(r reply) meta.Status {
	e.t.Helper()
	var st meta.Status
	if err := json.Unmarshal(r.body, &st); err != nil {
		e.t.Fatalf("%v: %s", err, r.body)
	}
	return st
}

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

func (e *env) namespace(name string) (corev1.Namespace, int) {
	var ns corev1.Namespace
	r := e.do("GET", "/api/v1/namespaces/"+name, "")
	_ = json.Unmarshal(r.body, &ns)
	return ns, r.code
}

func cm(name string) string { return fmt.Sprintf(`{"metadata":{"name":%q}}`, name) }

func TestSystemNamespaces(t *testing.T) {
	e := start(t, false)
	for _, n := range namespace.Immortal {
		ns, code := e.namespace(n)
		if code != 200 || ns.Status.Phase != "Active" {
			t.Errorf("%s: %d %+v", n, code, ns.Status)
		}
		r := e.do("DELETE", "/api/v1/namespaces/"+n, "")
		if st := e.status(r); r.code != 403 || st.Message != fmt.Sprintf(`namespaces %q is forbidden: this namespace may not be deleted`, n) {
			t.Errorf("delete %s: %d %s", n, r.code, r.body)
		}
	}
	// A second server on the same store finds them there.
	if err := namespace.EnsureSystem(context.Background(), e.srv); err != nil {
		t.Errorf("second EnsureSystem: %v", err)
	}
}

func TestWritesIntoMissingNamespace(t *testing.T) {
	e := start(t, false)
	r := e.do("POST", "/api/v1/namespaces/nowhere/configmaps", cm("c"))
	st := e.status(r)
	if r.code != 404 || st.Message != `namespaces "nowhere" not found` || st.Details == nil || st.Details.Kind != "namespaces" {
		t.Errorf("create in a missing namespace: %d %s", r.code, r.body)
	}
	if r := e.do("POST", "/api/v1/namespaces/default/configmaps", cm("c")); r.code != 201 {
		t.Errorf("create in default: %d %s", r.code, r.body)
	}
	// A namespace just created is usable at once, before the mirror has
	// seen it.
	if r := e.do("POST", "/api/v1/namespaces", `{"metadata":{"name":"fresh"}}`); r.code != 201 {
		t.Fatalf("create namespace: %d %s", r.code, r.body)
	}
	if r := e.do("POST", "/api/v1/namespaces/fresh/configmaps", cm("c")); r.code != 201 {
		t.Errorf("create in a fresh namespace: %d %s", r.code, r.body)
	}
}

func TestCreateInTerminatingNamespace(t *testing.T) {
	e := start(t, false) // no controller: the namespace stays Terminating
	e.do("POST", "/api/v1/namespaces", `{"metadata":{"name":"going"}}`)
	e.do("POST", "/api/v1/namespaces/going/configmaps", cm("kept"))
	if r := e.do("DELETE", "/api/v1/namespaces/going", ""); r.code != 200 {
		t.Fatalf("delete: %d %s", r.code, r.body)
	}
	r := e.do("POST", "/api/v1/namespaces/going/configmaps", cm("new"))
	st := e.status(r)
	if r.code != 403 || st.Message != `configmaps "new" is forbidden: unable to create new content in namespace going because it is being terminated` ||
		len(st.Details.Causes) != 1 || st.Details.Causes[0].Type != "NamespaceTerminating" {
		t.Errorf("create in a terminating namespace: %d %s", r.code, r.body)
	}
	// Updates of what is there go on.
	if r := e.do("PUT", "/api/v1/namespaces/going/configmaps/kept", `{"metadata":{"name":"kept"},"data":{"a":"b"}}`); r.code != 200 {
		t.Errorf("update in a terminating namespace: %d %s", r.code, r.body)
	}
}

// TestNamespaceDeletionWaitsForFinalizer: the namespace stays Terminating,
// with conditions saying what holds it, while one of its objects keeps a
// finalizer, and goes once the finalizer is removed.
func TestNamespaceDeletionWaitsForFinalizer(t *testing.T) {
	e := start(t, true)
	e.do("POST", "/api/v1/namespaces", `{"metadata":{"name":"team"}}`)
	for i := range 5 {
		e.do("POST", "/api/v1/namespaces/team/configmaps", cm(fmt.Sprintf("c%d", i)))
	}
	e.do("POST", "/api/v1/namespaces/team/secrets", `{"metadata":{"name":"held","finalizers":["example.com/hold"]},"stringData":{"a":"b"}}`)
	if r := e.do("DELETE", "/api/v1/namespaces/team", ""); r.code != 200 {
		t.Fatalf("delete: %d %s", r.code, r.body)
	}
	e.eventually("the configmaps to go", func() bool {
		var l struct{ Items []any }
		_ = json.Unmarshal(e.do("GET", "/api/v1/namespaces/team/configmaps", "").body, &l)
		return len(l.Items) == 0
	})
	e.eventually("the conditions to name the finalizer", func() bool {
		ns, _ := e.namespace("team")
		for _, c := range ns.Status.Conditions {
			if c.Type == corev1.NamespaceFinalizersRemaining && c.Status == "True" &&
				c.Message == "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances" {
				return true
			}
		}
		return false
	})
	ns, code := e.namespace("team")
	if code != 200 || ns.Status.Phase != "Terminating" || len(ns.Spec.Finalizers) != 1 {
		t.Fatalf("namespace while content remains: %d %+v", code, ns)
	}
	var content bool
	for _, c := range ns.Status.Conditions {
		content = content || (c.Type == corev1.NamespaceContentRemaining && c.Status == "True" &&
			c.Message == "Some resources are remaining: secrets. has 1 resource instances")
	}
	if !content {
		t.Errorf("conditions %+v", ns.Status.Conditions)
	}
	req, _ := http.NewRequest("PATCH", "http://kapi/api/v1/namespaces/team/secrets/held", strings.NewReader(`{"metadata":{"finalizers":null}}`))
	req.Header.Set("Content-Type", "application/merge-patch+json")
	rec := &recorder{header: http.Header{}, code: 200}
	e.srv.ServeHTTP(rec, req)
	if rec.code != 200 {
		t.Fatalf("remove finalizer: %d %s", rec.code, rec.body.Bytes())
	}
	e.eventually("the namespace to go", func() bool { _, code := e.namespace("team"); return code == 404 })
}

// TestNamespaceDeletedWhileWritten: creates racing the deletion are
// refused once the namespace is Terminating or gone, and the deletion
// finishes.
func TestNamespaceDeletedWhileWritten(t *testing.T) {
	e := start(t, true)
	e.do("POST", "/api/v1/namespaces", `{"metadata":{"name":"busy"}}`)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var bad []string
	var mu sync.Mutex
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r := e.do("POST", "/api/v1/namespaces/busy/configmaps", cm(fmt.Sprintf("w%d-%d", w, i)))
				if r.code != 201 && r.code != 403 && r.code != 404 {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("%d %s", r.code, r.body))
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	e.do("DELETE", "/api/v1/namespaces/busy", "")
	e.eventually("the namespace to go", func() bool { _, code := e.namespace("busy"); return code == 404 })
	close(stop)
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("unexpected answers: %v", bad[:min(3, len(bad))])
	}
	// Once the mirror has seen the namespace go, a create is a 404.
	e.eventually("creates to be answered NotFound", func() bool {
		r := e.do("POST", "/api/v1/namespaces/busy/configmaps", cm("late"))
		return r.code == 404 && status.IsNotFound(&status.Error{Status: e.status(r)})
	})
}
