package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kapi-dev/kapi/audit"
	"github.com/kapi-dev/kapi/examples/internal/kubeconfig"
	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
	"github.com/kapi-dev/kapi/examples/widgets/server"
)

// rbacServer is the Widget server run as its command line runs it, in
// RBAC mode on TLS with a token file and an audit log.
type rbacServer struct {
	url, adminKubeconfig, auditLog string
}

const authTokens = "alice-token,alice,1001\ncontroller-token,widget-controller,1002\n"

func startRBACServer(t *testing.T) *rbacServer {
	t.Helper()
	dir := t.TempDir()
	s := &rbacServer{adminKubeconfig: filepath.Join(dir, "admin.kubeconfig"), auditLog: filepath.Join(dir, "audit.log")}
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(authTokens), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s.url = "https://" + addr
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- server.Run(ctx, []string{"--addr", addr, "--kubeconfig", s.adminKubeconfig,
			"--authorization-mode=RBAC", "--token-auth-file", tokens, "--anonymous-auth=false",
			"--audit-log-path", s.auditLog}, io.Discard, io.Discard)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := insecure.Get(s.url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if _, err := os.Stat(s.adminKubeconfig); err == nil {
				return s
			}
		}
		select {
		case err := <-done:
			t.Fatalf("server: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not start")
		}
	}
}

// kubectlAs returns a kubectl for a token user, or for the administrator
// (the kubeconfig the server wrote) when token is empty.
func (s *rbacServer) kubectlAs(t *testing.T, token string) *kubectltest.Kubectl {
	t.Helper()
	k := kubectltest.New(t, s.url)
	if token == "" {
		k.Kubeconfig = s.adminKubeconfig
		return k
	}
	if err := kubeconfig.WriteConfig(k.Kubeconfig, kubeconfig.Config{Server: s.url, Namespace: "default", Token: token, InsecureSkipTLSVerify: true}); err != nil {
		t.Fatal(err)
	}
	return k
}

func (s *rbacServer) restConfig(token string) *rest.Config {
	return &rest.Config{Host: s.url, BearerToken: token, QPS: -1, Timeout: 30 * time.Second,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
}

// kubectlResult runs kubectl and returns its output and exit error.
func kubectlResult(t *testing.T, k *kubectltest.Kubectl, args ...string) (string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return k.Run(ctx, "", args...)
}

// TestRBAC is the scenario of an administrator handing alice the edit
// role in one namespace, with kubectl, client-go and controller-runtime
// on TLS.
func TestRBAC(t *testing.T) {
	s := startRBACServer(t)
	admin, alice := s.kubectlAs(t, ""), s.kubectlAs(t, "alice-token")

	if out := kubectl(t, admin, "", "auth", "whoami"); !strings.Contains(out, "kapi-admin") || !strings.Contains(out, "system:masters") {
		t.Fatalf("the administrator is %s", out)
	}
	// Namespaced writes need their namespace.
	for _, ns := range []string{"ns1", "ns2"} {
		kubectl(t, admin, "", "create", "ns", ns)
	}
	kubectl(t, admin, "", "create", "rolebinding", "alice-edit", "--clusterrole=edit", "--user=alice", "-n", "ns1")
	if out := kubectl(t, admin, "", "get", "rolebindings", "-n", "ns1", "-o", "yaml"); !strings.Contains(out, "name: edit") || !strings.Contains(out, "name: alice") {
		t.Errorf("rolebindings:\n%s", out)
	}
	kubectl(t, admin, "", "create", "rolebinding", "team-view", "--clusterrole=view", "--user=bob", "--user=carol", "--group=qa", "--serviceaccount=ns1:robot", "-n", "ns1")
	out := kubectl(t, admin, "", "get", "rolebinding", "team-view", "-n", "ns1", "-o", "wide")
	if !headerIs(out, "NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS") || !rowHas(out, "team-view", "ClusterRole/view") ||
		!strings.Contains(out, "bob, carol") || !rowHas(out, "qa", "ns1/robot") {
		t.Errorf("get rolebinding -o wide, as kube prints it:\n%s", out)
	}

	t.Run("alice edits ns1", func(t *testing.T) {
		kubectl(t, alice, widgetManifest("w1", "red"), "apply", "-n", "ns1", "-f", "-")
		if out := kubectl(t, alice, "", "get", "widgets", "-n", "ns1"); !strings.Contains(out, "w1") {
			t.Errorf("get widgets:\n%s", out)
		}
	})
	forbidden := []struct {
		name string
		args []string
		msg  string
	}{
		{"ns2", []string{"get", "widgets", "-n", "ns2"},
			`Error from server (Forbidden): widgets.stable.example.com is forbidden: User "alice" cannot list resource "widgets" in API group "stable.example.com" in the namespace "ns2"`},
		{"all namespaces", []string{"get", "widgets", "-A"},
			`Error from server (Forbidden): widgets.stable.example.com is forbidden: User "alice" cannot list resource "widgets" in API group "stable.example.com" at the cluster scope`},
		{"binding cluster-admin", []string{"create", "rolebinding", "mine", "--clusterrole=cluster-admin", "--user=alice", "-n", "ns1"},
			`rolebindings.rbac.authorization.k8s.io is forbidden: User "alice" cannot create resource "rolebindings" in API group "rbac.authorization.k8s.io" in the namespace "ns1"`},
	}
	for _, tc := range forbidden {
		t.Run("alice forbidden: "+tc.name, func(t *testing.T) {
			if errOut := kubectlFails(t, alice, "", tc.args...); !strings.Contains(errOut, tc.msg) {
				t.Errorf("stderr %s\nwant %s", errOut, tc.msg)
			}
		})
	}
	t.Run("can-i", func(t *testing.T) {
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"create", "widgets", "-n", "ns1"}, "yes"},
			{[]string{"delete", "widgets.stable.example.com", "-n", "ns1"}, "yes"},
			{[]string{"create", "widgets", "-n", "ns2"}, "no"},
			{[]string{"list", "widgets", "-A"}, "no"},
			{[]string{"create", "rolebindings", "-n", "ns1"}, "no"},
		} {
			out, _, _ := kubectlResult(t, alice, append([]string{"auth", "can-i"}, tc.args...)...)
			if strings.TrimSpace(out) != tc.want {
				t.Errorf("can-i %v: %q, want %s", tc.args, out, tc.want)
			}
		}
		out := kubectl(t, alice, "", "auth", "can-i", "--list", "-n", "ns1")
		if !strings.Contains(out, "widgets.stable.example.com") || !strings.Contains(out, "selfsubjectaccessreviews.authorization.k8s.io") {
			t.Errorf("can-i --list:\n%s", out)
		}
	})
	t.Run("whoami", func(t *testing.T) {
		out := kubectl(t, alice, "", "auth", "whoami")
		if !strings.Contains(out, "alice") || !strings.Contains(out, "1001") || !strings.Contains(out, "system:authenticated") {
			t.Errorf("whoami:\n%s", out)
		}
	})
	t.Run("admin as alice", func(t *testing.T) {
		kubectl(t, admin, "", "get", "widgets", "-n", "ns1", "--as", "alice")
		errOut := kubectlFails(t, admin, "", "get", "widgets", "-n", "ns2", "--as", "alice")
		if !strings.Contains(errOut, `User "alice" cannot list resource "widgets"`) {
			t.Errorf("--as alice in ns2: %s", errOut)
		}
		if out := kubectl(t, admin, "", "auth", "whoami", "--as", "alice"); !strings.Contains(out, "alice") || strings.Contains(out, "system:masters") {
			t.Errorf("whoami --as alice:\n%s", out)
		}
	})
	t.Run("client-go", func(t *testing.T) { clientGoAsAlice(t, s) })
	t.Run("controller-runtime with a namespaced Role", func(t *testing.T) { namespacedController(t, s, admin) })
	checkAuditLog(t, s.auditLog)
}

func clientGoAsAlice(t *testing.T, s *rbacServer) {
	dc, err := dynamic.NewForConfig(s.restConfig("alice-token"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "from-client-go"}, "spec": map[string]any{"color": "blue"},
	}}
	if _, err := dc.Resource(widgetsGVR).Namespace("ns1").Create(ctx, w, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if l, err := dc.Resource(widgetsGVR).Namespace("ns1").List(ctx, metav1.ListOptions{}); err != nil || len(l.Items) < 2 {
		t.Fatalf("list ns1: %v %v", l, err)
	}
	if _, err := dc.Resource(widgetsGVR).Namespace("ns2").Create(ctx, w, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("create in ns2: %v", err)
	}
	if _, err := dc.Resource(widgetsGVR).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("list across namespaces: %v", err)
	}
	_, err = dc.Resource(widgetsGVR).Watch(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `cannot watch resource "widgets" in API group "stable.example.com" at the cluster scope`) {
		t.Errorf("watch across namespaces: %v", err)
	}
	wi, err := dc.Resource(widgetsGVR).Namespace("ns1").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch ns1: %v", err)
	}
	wi.Stop()
}

// stampReconciler marks each Widget it sees with its replicas as ready.
type stampReconciler struct{ client client.Client }

func (r *stampReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var w crWidget
	if err := r.client.Get(ctx, req.NamespacedName, &w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	want := ptr.Deref(w.Spec.Replicas, 1)
	if w.Status.ReadyReplicas == want {
		return reconcile.Result{}, nil
	}
	w.Status.ReadyReplicas = want
	return reconcile.Result{}, r.client.Status().Update(ctx, &w)
}

func namespacedController(t *testing.T, s *rbacServer, admin *kubectltest.Kubectl) {
	kubectl(t, admin, "", "create", "role", "widget-controller", "-n", "ns1",
		"--verb=get,list,watch,update,patch", "--resource=widgets,widgets/status")
	kubectl(t, admin, "", "create", "rolebinding", "widget-controller", "-n", "ns1", "--role=widget-controller", "--user=widget-controller")
	if out := kubectl(t, admin, "", "get", "roles", "-n", "ns1", "-o", "yaml"); !strings.Contains(out, "- widgets/status") || !strings.Contains(out, "kind: Role") {
		t.Errorf("get roles -o yaml:\n%s", out)
	}
	kubectl(t, admin, "", "create", "clusterrole", "gadget-reader", "--verb=get,list", "--resource=gadgets")
	kubectl(t, admin, "", "create", "clusterrolebinding", "gadget-reader", "--clusterrole=gadget-reader", "--user=widget-controller")
	if out := kubectl(t, admin, "", "get", "clusterrolebindings"); !strings.Contains(out, "ClusterRole/gadget-reader") && !strings.Contains(out, "gadget-reader") {
		t.Errorf("get clusterrolebindings:\n%s", out)
	}
	cfg, scheme := s.restConfig("controller-token"), newCRSchemeT(t)
	mgr := newCRManager(t, cfg, scheme, func(o *manager.Options) {
		o.Cache = cache.Options{DefaultNamespaces: map[string]cache.Config{"ns1": {}}}
	})
	if err := ctrl.NewControllerManagedBy(mgr).Named("rbac-stamp").For(&crWidget{}).Complete(&stampReconciler{client: mgr.GetClient()}); err != nil {
		t.Fatal(err)
	}
	runManager(t, mgr)
	adminCfg, err := restConfigFromKubeconfig(s.adminKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	direct := newDirectClient(t, adminCfg, scheme)
	w := newCRWidget("reconciled", 4, "green", nil)
	w.Namespace = "ns1"
	if err := direct.Create(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, func() (bool, string) {
		var got crWidget
		err := direct.Get(context.Background(), client.ObjectKey{Namespace: "ns1", Name: "reconciled"}, &got)
		return err == nil && got.Status.ReadyReplicas == 4, fmt.Sprintf("%v %+v", err, got.Status)
	})
	// The controller's user may not touch ns2, and reads gadgets through
	// its ClusterRoleBinding.
	if out, _, _ := kubectlResult(t, s.kubectlAs(t, "controller-token"), "auth", "can-i", "list", "gadgets"); strings.TrimSpace(out) != "yes" {
		t.Errorf("controller can-i list gadgets: %q", out)
	}
	c := newDirectClient(t, cfg, scheme)
	if err := c.List(context.Background(), &crWidgetList{}, client.InNamespace("ns2")); !apierrors.IsForbidden(err) {
		t.Errorf("controller listing ns2: %v", err)
	}
}

// checkAuditLog reads the audit log: every line an audit.k8s.io/v1 Event,
// one ResponseComplete record per request, alice's denials under her
// name and the administrator's impersonation with both users.
func checkAuditLog(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	complete := map[string]int{}
	var aliceDenied, impersonated, started int
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev audit.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("unparseable record %v: %s", err, sc.Text())
		}
		if ev.APIVersion != "audit.k8s.io/v1" || ev.Kind != "Event" || ev.AuditID == "" || ev.RequestURI == "" {
			t.Errorf("record: %s", sc.Text())
		}
		switch ev.Stage {
		case audit.StageResponseComplete:
			complete[ev.AuditID]++
		case audit.StageResponseStarted:
			started++
		}
		if ev.User.Username == "alice" && ev.ResponseStatus != nil && ev.ResponseStatus.Code == 403 {
			aliceDenied++
		}
		if ev.User.Username == "kapi-admin" && ev.ImpersonatedUser != nil && ev.ImpersonatedUser.Username == "alice" {
			impersonated++
		}
	}
	for id, n := range complete {
		if n != 1 {
			t.Errorf("request %s has %d ResponseComplete records", id, n)
		}
	}
	if len(complete) < 20 || aliceDenied < 4 || impersonated < 2 {
		t.Errorf("%d requests, %d of alice's denied, %d impersonating alice; %d watches started", len(complete), aliceDenied, impersonated, started)
	}
}

// restConfigFromKubeconfig loads a kubeconfig as client-go's users do.
func restConfigFromKubeconfig(path string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, err
	}
	cfg.QPS = -1
	return cfg, nil
}
