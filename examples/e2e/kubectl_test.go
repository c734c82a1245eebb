package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

const widgetYAML = `apiVersion: stable.example.com/v1
kind: Widget
metadata:
  name: %s
  labels:
    app: demo
spec:
  color: %s
  tags: [a, b]
  ports:
  - name: http
    port: 80
    protocol: TCP
`

func widgetManifest(name, color string) string {
	return strings.Replace(strings.Replace(widgetYAML, "%s", name, 1), "%s", color, 1)
}

// kubectl runs a command that must succeed and returns its stdout.
func kubectl(t *testing.T, k *kubectltest.Kubectl, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, errOut, err := k.Run(ctx, stdin, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// kubectlFails runs a command that must fail and returns its stderr.
func kubectlFails(t *testing.T, k *kubectltest.Kubectl, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, errOut, err := k.Run(ctx, stdin, args...)
	if err == nil {
		t.Fatalf("kubectl %s succeeded: %s", strings.Join(args, " "), out)
	}
	return errOut
}

func TestKubectl(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)

	t.Run("api-resources", func(t *testing.T) {
		out := kubectl(t, k, "", "api-resources", "--api-group=stable.example.com")
		var widgets, gadgets string
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) > 0 && f[0] == "widgets" {
				widgets = line
			}
			if len(f) > 0 && f[0] == "gadgets" {
				gadgets = line
			}
		}
		if f := strings.Fields(widgets); len(f) != 5 || f[1] != "wd" || f[2] != "stable.example.com/v1" || f[3] != "true" || f[4] != "Widget" {
			t.Errorf("widgets row %q in:\n%s", widgets, out)
		}
		if f := strings.Fields(gadgets); len(f) != 4 || f[2] != "false" || f[3] != "Gadget" {
			t.Errorf("gadgets row %q in:\n%s", gadgets, out)
		}
	})

	t.Run("explain", func(t *testing.T) {
		out := kubectl(t, k, "", "explain", "widgets.spec")
		for _, want := range []string{"GROUP:      stable.example.com", "KIND:       Widget", "VERSION:    v1", "replicas", "color", "ports", "Number of desired replicas."} {
			if !strings.Contains(out, want) {
				t.Errorf("explain output lacks %q:\n%s", want, out)
			}
		}
		out = kubectl(t, k, "", "explain", "wd.spec.ports")
		if !strings.Contains(out, "name\t<string> -required-") && !strings.Contains(out, "-required-") {
			t.Errorf("explain ports does not mark required fields:\n%s", out)
		}
	})

	t.Run("create with default validation", func(t *testing.T) {
		out := kubectl(t, k, widgetManifest("one", "red"), "create", "-f", "-")
		if !strings.Contains(out, "widget.stable.example.com/one created") {
			t.Errorf("create: %s", out)
		}
		// kubectl's default --validate=strict asks the server to reject
		// unknown fields.
		bad := strings.Replace(widgetManifest("bad", "red"), "  color: red", "  colour: red", 1)
		errOut := kubectlFails(t, k, bad, "create", "-f", "-")
		if !strings.Contains(errOut, `unknown field "spec.colour"`) {
			t.Errorf("strict validation: %s", errOut)
		}
		errOut = kubectlFails(t, k, widgetManifest("one", "red"), "create", "-f", "-")
		if !strings.Contains(errOut, "AlreadyExists") && !strings.Contains(errOut, "already exists") {
			t.Errorf("second create: %s", errOut)
		}
	})

	t.Run("get -o yaml", func(t *testing.T) {
		out := kubectl(t, k, "", "get", "wd", "one", "-o", "yaml")
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name, UID, ResourceVersion, Namespace string
			} `json:"metadata"`
			Spec struct {
				Color    string `json:"color"`
				Replicas int    `json:"replicas"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(out), &obj); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if obj.Kind != "Widget" || obj.Metadata.Name != "one" || obj.Metadata.UID == "" || obj.Spec.Color != "red" || obj.Spec.Replicas != 1 {
			t.Errorf("get -o yaml:\n%s", out)
		}
		list := kubectl(t, k, "", "get", "widgets")
		lines := strings.Split(strings.TrimSpace(list), "\n")
		if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "NAME COLOR REPLICAS READY AGE" {
			t.Fatalf("get widgets:\n%s", list)
		}
		if f := strings.Fields(lines[1]); len(f) != 4 || f[0] != "one" || f[1] != "red" || f[2] != "1" || !strings.HasSuffix(f[3], "s") {
			t.Errorf("get widgets row: %q", lines[1])
		}
	})

	t.Run("apply", func(t *testing.T) {
		out := kubectl(t, k, widgetManifest("two", "red"), "apply", "-f", "-")
		if !strings.Contains(out, "widget.stable.example.com/two created") {
			t.Errorf("first apply: %s", out)
		}
		out = kubectl(t, k, widgetManifest("two", "blue"), "apply", "-f", "-")
		if !strings.Contains(out, "widget.stable.example.com/two configured") {
			t.Errorf("second apply: %s", out)
		}
		out = kubectl(t, k, widgetManifest("two", "blue"), "apply", "-f", "-")
		if !strings.Contains(out, "widget.stable.example.com/two unchanged") {
			t.Errorf("third apply: %s", out)
		}
		if got := kubectl(t, k, "", "get", "wd", "two", "-o", "jsonpath={.spec.color} {.metadata.generation}"); got != "blue 2" {
			t.Errorf("after apply: %q", got)
		}
	})

	t.Run("replace", func(t *testing.T) {
		out := kubectl(t, k, widgetManifest("one", "green"), "replace", "-f", "-")
		if !strings.Contains(out, "widget.stable.example.com/one replaced") {
			t.Errorf("replace: %s", out)
		}
		if got := kubectl(t, k, "", "get", "wd", "one", "-o", "jsonpath={.spec.color}"); got != "green" {
			t.Errorf("after replace: %q", got)
		}
	})

	t.Run("scale", func(t *testing.T) {
		out := kubectl(t, k, "", "scale", "wd", "one", "--replicas=4")
		if !strings.Contains(out, "widget.stable.example.com/one scaled") {
			t.Errorf("scale: %s", out)
		}
		if got := kubectl(t, k, "", "get", "wd", "one", "-o", "jsonpath={.spec.replicas}"); got != "4" {
			t.Errorf("after scale: %q", got)
		}
	})

	t.Run("get -w", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		p, err := k.Start(ctx, "get", "wd", "-w", "--request-timeout=20s", "-o", "name")
		if err != nil {
			t.Fatal(err)
		}
		defer p.Stop()
		seen := map[string]bool{}
		for len(seen) < 2 {
			line, err := p.NextLine(20 * time.Second)
			if err != nil {
				t.Fatalf("waiting for the initial list: %v (seen %v; stderr %s)", err, seen, p.Stderr())
			}
			seen[strings.TrimSpace(line)] = true
		}
		kubectl(t, k, widgetManifest("three", "red"), "create", "-f", "-")
		for {
			line, err := p.NextLine(20 * time.Second)
			if err != nil {
				t.Fatalf("waiting for the watch event: %v (stderr %s)", err, p.Stderr())
			}
			if strings.TrimSpace(line) == "widget.stable.example.com/three" {
				break
			}
		}
	})

	t.Run("delete", func(t *testing.T) {
		out := kubectl(t, k, "", "delete", "wd", "one", "two", "three")
		for _, n := range []string{"one", "two", "three"} {
			if !strings.Contains(out, `widget.stable.example.com "`+n+`" deleted`) {
				t.Errorf("delete: %s", out)
			}
		}
		errOut := kubectlFails(t, k, "", "get", "wd", "one")
		if !strings.Contains(errOut, `widgets.stable.example.com "one" not found`) {
			t.Errorf("get after delete: %s", errOut)
		}
	})

	t.Run("cluster-scoped gadgets", func(t *testing.T) {
		kubectl(t, k, "apiVersion: stable.example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\nspec:\n  owner: me\n  level: 3\n", "apply", "-f", "-")
		if got := kubectl(t, k, "", "get", "gadgets", "g1", "-o", "jsonpath={.spec.owner}/{.spec.level}"); got != "me/3" {
			t.Errorf("gadget: %q", got)
		}
	})
}
