package helm

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/kube"
	release "helm.sh/helm/v4/pkg/release/common"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kapi-dev/kapi/examples/internal/kubeconfig"
	"github.com/kapi-dev/kapi/examples/widgets/server"
)

const (
	namespace   = "shop"
	releaseName = "shop"
	timeout     = 60 * time.Second
)

var widgets = schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "widgets"}

// logger discards logs unless KAPI_E2E_LOG is set, as the e2e tests do.
func logger() *slog.Logger {
	if os.Getenv("KAPI_E2E_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// cluster is the example server and the clients the test checks it with.
type cluster struct {
	flags   *genericclioptions.ConfigFlags
	typed   kubernetes.Interface
	dynamic dynamic.Interface
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	h, err := server.NewHandler(server.Config{Logger: logger()})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	dir := t.TempDir()
	path := filepath.Join(dir, "kubeconfig")
	if err := kubeconfig.Write(path, ts.URL, ""); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	flags := genericclioptions.NewConfigFlags(false)
	ns, cache := namespace, filepath.Join(dir, "cache")
	flags.KubeConfig, flags.Namespace, flags.CacheDir = &path, &ns, &cache
	return &cluster{flags: flags, typed: kubernetes.NewForConfigOrDie(cfg), dynamic: dynamic.NewForConfigOrDie(cfg)}
}

// helm returns an action configuration with Helm's default Secret
// storage driver, as the helm command builds it.
func (c *cluster) helm(t *testing.T) *action.Configuration {
	t.Helper()
	cfg := action.NewConfiguration(action.ConfigurationSetLogger(logger().Handler()))
	if err := cfg.Init(c.flags, namespace, "secret"); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestHelm installs a chart of a ConfigMap, a Secret and a Widget into
// a new namespace, upgrades it, rolls it back and uninstalls it, with
// Helm v4's actions and the kstatus watcher waiting for readiness,
// checking the objects and the release Secrets after each: once with
// server-side apply (Helm 4's default) and once with client-side apply
// (Helm 3's three-way patches).
func TestHelm(t *testing.T) {
	for _, ssa := range []bool{true, false} {
		t.Run(fmt.Sprintf("server-side apply %v", ssa), func(t *testing.T) { testHelm(t, ssa) })
	}
}

func testHelm(t *testing.T, serverSideApply bool) {
	c := startCluster(t)
	chrt, err := loader.Load("testdata/widgets")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	install := action.NewInstall(c.helm(t))
	install.ReleaseName, install.Namespace, install.CreateNamespace = releaseName, namespace, true
	install.WaitStrategy, install.Timeout = kube.StatusWatcherStrategy, timeout
	install.ServerSideApply = serverSideApply
	if _, err := install.RunWithContext(ctx, chrt, nil); err != nil {
		t.Fatalf("install: %v", err)
	}
	c.expect(t, "red", "hello", "s3cret")
	c.expectReleases(t, release.StatusDeployed)

	upgrade := action.NewUpgrade(c.helm(t))
	upgrade.Namespace = namespace
	upgrade.WaitStrategy, upgrade.Timeout = kube.StatusWatcherStrategy, timeout
	if _, err := upgrade.RunWithContext(ctx, releaseName, chrt, map[string]any{"color": "blue", "greeting": "bye", "password": "n3w"}); err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	c.expect(t, "blue", "bye", "n3w")
	c.expectReleases(t, release.StatusSuperseded, release.StatusDeployed)

	rollback := action.NewRollback(c.helm(t))
	rollback.Version = 1
	rollback.WaitStrategy, rollback.Timeout = kube.StatusWatcherStrategy, timeout
	if err := rollback.Run(releaseName); err != nil {
		t.Fatalf("rollback: %v", err)
	}
	c.expect(t, "red", "hello", "s3cret")
	c.expectReleases(t, release.StatusSuperseded, release.StatusSuperseded, release.StatusDeployed)

	uninstall := action.NewUninstall(c.helm(t))
	uninstall.WaitStrategy, uninstall.Timeout = kube.StatusWatcherStrategy, timeout
	if _, err := uninstall.Run(releaseName); err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	c.expectGone(t)
	c.expectReleases(t)
}

// expect checks the chart's objects carry the values of a release.
func (c *cluster) expect(t *testing.T, color, greeting, password string) {
	t.Helper()
	ctx := context.Background()
	cm, err := c.typed.CoreV1().ConfigMaps(namespace).Get(ctx, releaseName+"-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Data["greeting"] != greeting || cm.Data["color"] != color {
		t.Errorf("ConfigMap data = %v, want greeting %q, color %q", cm.Data, greeting, color)
	}
	if got := cm.Annotations["meta.helm.sh/release-name"]; got != releaseName {
		t.Errorf("ConfigMap's release annotation = %q", got)
	}
	sec, err := c.typed.CoreV1().Secrets(namespace).Get(ctx, releaseName+"-secret", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(sec.Data["password"]); got != password || len(sec.StringData) != 0 {
		t.Errorf("Secret password = %q (stringData %v), want %q", got, sec.StringData, password)
	}
	w, err := c.dynamic.Resource(widgets).Namespace(namespace).Get(ctx, releaseName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, _, _ := unstructured.NestedString(w.Object, "spec", "color")
	tags, _, _ := unstructured.NestedStringSlice(w.Object, "spec", "tags")
	if got != color || len(tags) != 1 || tags[0] != "helm" {
		t.Errorf("Widget spec = %v, want color %q and tags [helm]", w.Object["spec"], color)
	}
}

// expectGone checks that the chart's objects are deleted.
func (c *cluster) expectGone(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for what, get := range map[string]func() error{
		"ConfigMap": func() error {
			_, err := c.typed.CoreV1().ConfigMaps(namespace).Get(ctx, releaseName+"-config", metav1.GetOptions{})
			return err
		},
		"Secret": func() error {
			_, err := c.typed.CoreV1().Secrets(namespace).Get(ctx, releaseName+"-secret", metav1.GetOptions{})
			return err
		},
		"Widget": func() error {
			_, err := c.dynamic.Resource(widgets).Namespace(namespace).Get(ctx, releaseName, metav1.GetOptions{})
			return err
		},
	} {
		if err := get(); !apierrors.IsNotFound(err) {
			t.Errorf("%s after uninstall: %v, want NotFound", what, err)
		}
	}
}

// expectReleases checks Helm's release Secrets: one per revision, in
// the release's namespace, with the statuses given, in order.
func (c *cluster) expectReleases(t *testing.T, want ...release.Status) {
	t.Helper()
	list, err := c.typed.CoreV1().Secrets(namespace).List(context.Background(), metav1.ListOptions{LabelSelector: "owner=helm,name=" + releaseName})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range list.Items {
		if s.Type != "helm.sh/release.v1" {
			t.Errorf("release Secret %s has type %q", s.Name, s.Type)
		}
		got[s.Name] = s.Labels["status"]
	}
	if len(got) != len(want) {
		t.Fatalf("release Secrets %v, want %d", got, len(want))
	}
	for i, st := range want {
		name := fmt.Sprintf("sh.helm.release.v1.%s.v%d", releaseName, i+1)
		if got[name] != string(st) {
			t.Errorf("%s status %q, want %q (all: %v)", name, got[name], st, got)
		}
	}
}
