package envtest_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/envtest"
)

// start starts an environment for one test.
func start(t *testing.T, env *envtest.Environment) *rest.Config {
	t.Helper()
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return cfg
}

func clientset(t *testing.T, cfg *rest.Config) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// eventually polls cond every 20ms for up to 20s, failing with what it
// last said.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20s; last: %s", what, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStartStop: Start serves TLS on loopback with the system
// namespaces in place, as an administrator; Stop closes it.
func TestStartStop(t *testing.T) {
	env := &envtest.Environment{}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(cfg.Host, "https://127.0.0.1:") || len(cfg.CAData) == 0 || len(cfg.CertData) == 0 || env.Config != cfg || len(env.KubeConfig) == 0 {
		t.Fatalf("config %+v", cfg)
	}
	cs := clientset(t, cfg)
	ctx := context.Background()
	for _, ns := range []string{"default", "kube-system", "kube-public"} {
		if _, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
			t.Errorf("namespace %s: %v", ns, err)
		}
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create as the administrator: %v", err)
	}
	if _, err := env.Start(); err == nil {
		t.Error("a second Start of a started environment succeeded")
	}
	if err := env.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err == nil {
		t.Error("the server answers after Stop")
	}
	// An environment starts again, empty.
	cfg = start(t, env)
	if _, err := clientset(t, cfg).CoreV1().ConfigMaps("default").Get(ctx, "c", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after a restart: %v, want NotFound", err)
	}
}

// TestAddUserRBAC: users added on demand get client certificates;
// under RBAC they may do what their bindings allow, and nothing before.
func TestAddUserRBAC(t *testing.T) {
	env := &envtest.Environment{}
	admin := clientset(t, start(t, env))
	alice, err := env.AddUser(envtest.User{Name: "alice", Groups: []string{"devs"}}, &rest.Config{UserAgent: "alice-test"})
	if err != nil {
		t.Fatal(err)
	}
	if alice.Config().UserAgent != "alice-test" {
		t.Error("the base config was not kept")
	}
	if kc, err := alice.KubeConfig(); err != nil || !strings.Contains(string(kc), "client-certificate-data") {
		t.Errorf("kubeconfig: %v\n%s", err, kc)
	}
	cs := clientset(t, alice.Config())
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "alice-"}}
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `User "alice" cannot create resource "configmaps"`) {
		t.Fatalf("create before any binding: %v, want Forbidden", err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "devs-edit", Namespace: "default"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{{Kind: "Group", APIGroup: "rbac.authorization.k8s.io", Name: "devs"}},
	}
	if _, err := admin.RbacV1().RoleBindings("default").Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "alice creates a ConfigMap once bound to edit", func() (bool, string) {
		_, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
		return err == nil, fmt.Sprint(err)
	})
	if _, err := cs.CoreV1().ConfigMaps("kube-system").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("list in another namespace: %v, want Forbidden", err)
	}
	// A certificate signed by another CA is no one: anonymous, forbidden.
	other := &envtest.Environment{AuthorizationMode: envtest.AuthorizationAlwaysAllow}
	start(t, other)
	stranger, err := other.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wrongCA := rest.CopyConfig(alice.Config())
	wrongCA.CertData, wrongCA.KeyData = stranger.Config().CertData, stranger.Config().KeyData
	if _, err := clientset(t, wrongCA).CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{}); err == nil {
		t.Error("a client certificate of another CA was trusted")
	}
}

func TestAlwaysAllow(t *testing.T) {
	env := &envtest.Environment{AuthorizationMode: envtest.AuthorizationAlwaysAllow}
	start(t, env)
	bob, err := env.AddUser(envtest.User{Name: "bob"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := clientset(t, bob.Config()).CoreV1().Secrets("kube-system").List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Errorf("AlwaysAllow: %v", err)
	}
	if _, err := (&envtest.Environment{AuthorizationMode: "Webhook"}).Start(); err == nil || !strings.Contains(err.Error(), "Webhook") {
		t.Errorf("an unknown mode: %v", err)
	}
	if _, err := (&envtest.Environment{}).AddUser(envtest.User{Name: "x"}, nil); err == nil {
		t.Error("AddUser before Start succeeded")
	}
}

var (
	guestbooks = schema.GroupVersionResource{Group: "webapp.example.com", Version: "v1", Resource: "guestbooks"}
	crds       = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

// TestCRDDirectory: the CRDs of a directory are served, and Start fills
// CRDs; a missing path fails only with ErrorIfCRDPathMissing.
func TestCRDDirectory(t *testing.T) {
	env := &envtest.Environment{CRDDirectoryPaths: []string{"testdata/crd", "testdata/missing"}}
	cfg := start(t, env)
	if len(env.CRDs) != 1 || env.CRDs[0].Name != "guestbooks.webapp.example.com" {
		t.Fatalf("CRDs after Start: %v", env.CRDs)
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "webapp.example.com/v1", "kind": "Guestbook",
		"metadata": map[string]any{"name": "g"}, "spec": map[string]any{"title": "hello"},
	}}
	got, err := dc.Resource(guestbooks).Namespace("default").Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != 1 {
		t.Errorf("the CRD's default: replicas %d", r)
	}
	u.Object["spec"] = map[string]any{"title": "NO"}
	u.SetName("bad")
	if _, err := dc.Resource(guestbooks).Namespace("default").Create(ctx, u, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("against the CRD's pattern: %v, want Invalid", err)
	}

	// The CRD is an object of the API, Established.
	crd, err := dc.Resource(crds).Get(ctx, "guestbooks.webapp.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	if !strings.Contains(fmt.Sprint(conds), "type:Established") {
		t.Errorf("conditions %v", conds)
	}

	strict := &envtest.Environment{CRDDirectoryPaths: []string{"testdata/missing"}, ErrorIfCRDPathMissing: true}
	if _, err := strict.Start(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing path with ErrorIfCRDPathMissing: %v", err)
	}
}

// TestControlPlane: the garbage collector deletes dependents of a
// deleted owner, and the namespace controller empties and removes a
// deleted namespace; kube-apiserver alone, as envtest runs it, does
// neither.
func TestControlPlane(t *testing.T) {
	cs := clientset(t, start(t, &envtest.Environment{}))
	ctx := context.Background()
	owner, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dep := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dependent", OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID},
	}}}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().ConfigMaps("default").Delete(ctx, owner.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the garbage collector deletes the dependent", func() (bool, string) {
		_, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "dependent", metav1.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})

	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "scratch"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps("scratch").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Namespaces().Delete(ctx, "scratch", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the namespace controller removes the namespace", func() (bool, string) {
		ns, err := cs.CoreV1().Namespaces().Get(ctx, "scratch", metav1.GetOptions{})
		if err == nil {
			return false, fmt.Sprintf("phase %s", ns.Status.Phase)
		}
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	if _, err := cs.CoreV1().ConfigMaps("scratch").Get(ctx, "c", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the deleted namespace's ConfigMap: %v", err)
	}
}

// TestWebhookOptions: Start prepares a webhook server's port and
// certificate, and refuses webhook configurations, which kapi does not
// call.
func TestWebhookOptions(t *testing.T) {
	env := &envtest.Environment{}
	start(t, env)
	w := env.WebhookInstallOptions
	if w.LocalServingHost != "127.0.0.1" || w.LocalServingPort == 0 || w.LocalServingCertDir == "" || len(w.LocalServingCAData) == 0 {
		t.Errorf("webhook options after Start: %+v", w)
	}
	missing := &envtest.Environment{WebhookInstallOptions: envtest.WebhookInstallOptions{Paths: []string{"testdata/no-such-dir"}}}
	if _, err := missing.Start(); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing webhook path: %v", err)
	}
}

// TestWebhookDefinitions: the configurations of Paths are read (other
// kinds of documents skipped), a webhook reached through a Service path
// is pointed at the local webhook server, one given by URL keeps it, and
// both get the local serving CA, as controller-runtime's envtest does.
func TestWebhookDefinitions(t *testing.T) {
	o := envtest.WebhookInstallOptions{Paths: []string{"testdata/webhooks"}, LocalServingPort: 9443}
	if err := o.PrepWithoutInstalling(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Cleanup() })
	if len(o.MutatingWebhooks) != 1 || len(o.ValidatingWebhooks) != 1 {
		t.Fatalf("read %d mutating, %d validating configurations, want 1 and 1", len(o.MutatingWebhooks), len(o.ValidatingWebhooks))
	}
	got := []admissionv1.WebhookClientConfig{o.MutatingWebhooks[0].Webhooks[0].ClientConfig, o.ValidatingWebhooks[0].Webhooks[0].ClientConfig}
	local, remote := "https://127.0.0.1:9443//mutate-stable-example-com-v1-widget", "https://example.com/validate"
	want := []admissionv1.WebhookClientConfig{{URL: &local, CABundle: o.LocalServingCAData}, {URL: &remote, CABundle: o.LocalServingCAData}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("client configs (-want +got):\n%s", diff)
	}
}

// TestInstallCRDs: CRDs given as objects are installed at Start, more
// while the environment runs, and UninstallCRDs deletes them with their
// objects.
func TestInstallCRDs(t *testing.T) {
	env := &envtest.Environment{CRDs: []*apiextensionsv1.CustomResourceDefinition{crontabCRD("crontabs", "CronTab")}}
	cfg := start(t, env)
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tabs := schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}
	if _, err := dc.Resource(tabs).Namespace("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("the CRD given at Start: %v", err)
	}
	more := envtest.CRDInstallOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{crontabCRD("cronjobs", "CronJob")}}
	installed, err := envtest.InstallCRDs(cfg, more)
	if err != nil || len(installed) != 1 {
		t.Fatalf("InstallCRDs: %v %v", installed, err)
	}
	jobs := schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "cronjobs"}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronJob",
		"metadata": map[string]any{"name": "j"}, "spec": map[string]any{"cronSpec": "* * * * *"}}}
	if _, err := dc.Resource(jobs).Namespace("default").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("an object of the CRD installed while running: %v", err)
	}
	if err := envtest.UninstallCRDs(cfg, more); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the kind of a deleted CRD is no longer served", func() (bool, string) {
		_, err := dc.Resource(jobs).Namespace("default").List(ctx, metav1.ListOptions{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})
	bad := crontabCRD("badtabs", "BadTab")
	bad.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = apiextensionsv1.JSONSchemaProps{}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{CRDs: []*apiextensionsv1.CustomResourceDefinition{bad}}); !apierrors.IsInvalid(errors.Unwrap(err)) {
		t.Errorf("a non-structural CRD: %v, want 422 Invalid", err)
	}
}

func crontabCRD(plural, kind string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Kind: kind},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"cronSpec": {Type: "string"}}},
					},
				}},
			}},
		},
	}
}
