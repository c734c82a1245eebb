package e2e

import (
	"os"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

// TestKubectlValidatingAdmissionPolicy: a ValidatingAdmissionPolicy
// bound to one namespace guards Widgets there: kubectl apply of a Widget
// it denies prints what kubectl prints against kube-apiserver (taken from
// the reference with the same policy, binding and Widget), one it allows
// is created, and the same Widget in another namespace is not guarded.
func TestKubectlValidatingAdmissionPolicy(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)
	policy, err := os.ReadFile("testdata/widget-replicas-policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	kubectl(t, k, "", "create", "namespace", "guarded")
	kubectl(t, k, string(policy), "apply", "-f", "-")
	widget := func(name, ns, replicas string) string {
		return "apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: " + name +
			"\n  namespace: " + ns + "\nspec:\n  replicas: " + replicas + "\n"
	}
	errOut := kubectlFails(t, k, widget("big", "guarded", "7"), "apply", "-f", "-")
	want := `Error from server (Forbidden): error when creating "STDIN": widgets.stable.example.com "big" is forbidden: ` +
		`ValidatingAdmissionPolicy 'widget-replicas' with binding 'widget-replicas' denied request: replicas 7 exceeds 5`
	if strings.TrimSpace(errOut) != want {
		t.Errorf("denied apply printed\n%s\nwant\n%s", errOut, want)
	}
	if out := kubectl(t, k, widget("small", "guarded", "3"), "apply", "-f", "-"); !strings.Contains(out, "widget.stable.example.com/small created") {
		t.Errorf("allowed apply: %s", out)
	}
	if out := kubectl(t, k, widget("big", "default", "7"), "apply", "-f", "-"); !strings.Contains(out, "widget.stable.example.com/big created") {
		t.Errorf("apply outside the bound namespace: %s", out)
	}
}
