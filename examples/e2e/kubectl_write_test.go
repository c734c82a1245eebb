package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

// TestKubectlWritePath drives the write path's user-visible behaviour with
// kubectl: server-side dry run, strict and warning field validation on
// apply, schema validation, and deletion held by a finalizer until a patch
// removes it.
func TestKubectlWritePath(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)

	t.Run("create --dry-run=server", func(t *testing.T) {
		out := kubectl(t, k, widgetManifest("dry", "red"), "create", "--dry-run=server", "-f", "-", "-o", "yaml")
		// The would-be object carries what the server fills in: defaults
		// and a uid, but it is not stored.
		for _, want := range []string{"name: dry", "replicas: 1", "uid: "} {
			if !strings.Contains(out, want) {
				t.Errorf("dry-run output lacks %q:\n%s", want, out)
			}
		}
		if resp, err := http.Get(ts.URL + "/apis/stable.example.com/v1/namespaces/default/widgets/dry"); err != nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("after a dry run the widget exists: %v %v", resp.StatusCode, err)
		}
	})

	t.Run("apply --validate=strict", func(t *testing.T) {
		bad := strings.Replace(widgetManifest("strict", "red"), "  color: red", "  color: red\n  shade: dark", 1)
		errOut := kubectlFails(t, k, bad, "apply", "--validate=strict", "-f", "-")
		if !strings.Contains(errOut, `unknown field "spec.shade"`) {
			t.Errorf("strict apply: %s", errOut)
		}
		if resp, err := http.Get(ts.URL + "/apis/stable.example.com/v1/namespaces/default/widgets/strict"); err != nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("a rejected apply stored the widget: %v %v", resp.StatusCode, err)
		}
	})

	t.Run("apply --validate=warn", func(t *testing.T) {
		bad := strings.Replace(widgetManifest("warned", "red"), "  color: red", "  color: red\n  shade: dark", 1)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, errOut, err := k.Run(ctx, bad, "apply", "--validate=warn", "-f", "-")
		if err != nil {
			t.Fatalf("apply --validate=warn: %v\n%s", err, errOut)
		}
		if !strings.Contains(out, "widget.stable.example.com/warned created") {
			t.Errorf("apply output: %s", out)
		}
		if !strings.Contains(errOut, `Warning: unknown field "spec.shade"`) {
			t.Errorf("no warning printed: %q", errOut)
		}
		// The field is dropped from the object (the last-applied
		// annotation kubectl writes keeps it, as kube-apiserver does).
		if got := kubectl(t, k, "", "get", "wd", "warned", "-o", "jsonpath={.spec}"); strings.Contains(got, "shade") || !strings.Contains(got, `"color":"red"`) {
			t.Errorf("spec after the warned apply: %s", got)
		}
	})

	t.Run("schema validation", func(t *testing.T) {
		bad := strings.Replace(widgetManifest("big", "red"), "  color: red", "  color: red\n  replicas: 5000", 1)
		errOut := kubectlFails(t, k, bad, "apply", "-f", "-")
		if !strings.Contains(errOut, "spec.replicas") || !strings.Contains(errOut, "less than or equal to 1000") {
			t.Errorf("replicas above the maximum: %s", errOut)
		}
	})

	t.Run("delete held by a finalizer", func(t *testing.T) {
		m := strings.Replace(widgetManifest("held", "red"), "  labels:", "  finalizers: [example.com/hold]\n  labels:", 1)
		kubectl(t, k, m, "create", "-f", "-")
		out := kubectl(t, k, "", "delete", "wd", "held", "--wait=false")
		if !strings.Contains(out, `"held" deleted`) {
			t.Errorf("delete: %s", out)
		}
		ts := kubectl(t, k, "", "get", "wd", "held", "-o", "jsonpath={.metadata.deletionTimestamp}")
		if ts == "" {
			t.Fatal("the held widget has no deletionTimestamp")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		p, err := k.Start(ctx, "wait", "--for=delete", "wd/held", "--timeout=45s")
		if err != nil {
			t.Fatal(err)
		}
		// The wait must still be waiting: the finalizer holds the object.
		if line, err := p.NextLine(2 * time.Second); err == nil {
			t.Fatalf("wait ended before the finalizer was removed: %q", line)
		}
		kubectl(t, k, "", "patch", "wd", "held", "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
		if err := p.Wait(); err != nil {
			t.Fatalf("wait --for=delete: %v\n%s", err, p.Stderr())
		}
		if !strings.Contains(p.Stdout(), "held condition met") {
			t.Errorf("wait output: %q", p.Stdout())
		}
		errOut := kubectlFails(t, k, "", "get", "wd", "held")
		if !strings.Contains(errOut, "NotFound") && !strings.Contains(errOut, "not found") {
			t.Errorf("get after the finalizer's removal: %s", errOut)
		}
	})
}

// TestKubectlVersion checks that the server reports a version within
// kubectl's supported skew of the client this module tests with, so that
// kubectl prints no skew warning.
func TestKubectlVersion(t *testing.T) {
	k := kubectltest.New(t, startServer(t).URL)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, errOut, err := k.Run(ctx, "", "version")
	if err != nil {
		t.Fatalf("kubectl version: %v\n%s", err, errOut)
	}
	if !strings.Contains(out, "Server Version: v1.37.0-kapi") || strings.Contains(out+errOut, "Warning") {
		t.Errorf("kubectl version:\n%s%s", out, errOut)
	}
}
