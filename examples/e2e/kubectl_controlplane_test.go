package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

// ownedManifest is a Widget and a ConfigMap in namespace ns owned by the
// Gadget (name, uid), blocking its foreground deletion.
func ownedManifest(ns, suffix, gadget, uid string) string {
	owner := fmt.Sprintf(`  ownerReferences:
  - apiVersion: stable.example.com/v1
    kind: Gadget
    name: %s
    uid: %s
    blockOwnerDeletion: true
`, gadget, uid)
	return fmt.Sprintf(`apiVersion: stable.example.com/v1
kind: Widget
metadata:
  name: w-%[1]s
  namespace: %[2]s
%[3]sspec:
  color: red
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-%[1]s
  namespace: %[2]s
%[3]sdata:
  k: v
`, suffix, ns, owner)
}

// TestKubectlControlPlane: namespaces, a foreground cascade from a
// cluster-scoped owner into a namespace, events in get and describe, and
// the core kinds' tables, with kubectl.
func TestKubectlControlPlane(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)

	t.Run("get ns", func(t *testing.T) {
		out := kubectl(t, k, "", "get", "ns")
		for _, ns := range []string{"default", "kube-system", "kube-public"} {
			if !rowHas(out, ns, "Active") {
				t.Errorf("no Active row for %s:\n%s", ns, out)
			}
		}
		if !strings.HasPrefix(out, "NAME") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], "STATUS") {
			t.Errorf("header:\n%s", out)
		}
		if out := kubectl(t, k, "", "get", "ns", "--field-selector", "status.phase=Active", "-o", "name"); !strings.Contains(out, "namespace/default") {
			t.Errorf("field selector status.phase: %s", out)
		}
	})

	t.Run("create and delete ns", func(t *testing.T) {
		if out := kubectl(t, k, "", "create", "ns", "scratch"); !strings.Contains(out, "namespace/scratch created") {
			t.Errorf("create ns: %s", out)
		}
		kubectl(t, k, "", "create", "configmap", "c1", "-n", "scratch", "--from-literal=a=b")
		if out := kubectl(t, k, "", "delete", "ns", "scratch"); !strings.Contains(out, `namespace "scratch" deleted`) {
			t.Errorf("delete ns: %s", out)
		}
		errOut := kubectlFails(t, k, "", "get", "ns", "scratch")
		if !strings.Contains(errOut, `namespaces "scratch" not found`) {
			t.Errorf("after delete: %s", errOut)
		}
		errOut = kubectlFails(t, k, "", "create", "configmap", "c2", "-n", "nowhere")
		if !strings.Contains(errOut, `namespaces "nowhere" not found`) {
			t.Errorf("create in a missing namespace: %s", errOut)
		}
		errOut = kubectlFails(t, k, "", "delete", "ns", "kube-system")
		if !strings.Contains(errOut, "this namespace may not be deleted") {
			t.Errorf("delete kube-system: %s", errOut)
		}
	})

	t.Run("foreground cascade from a gadget", func(t *testing.T) {
		kubectl(t, k, "", "create", "ns", "shop")
		kubectl(t, k, "apiVersion: stable.example.com/v1\nkind: Gadget\nmetadata:\n  name: g1\nspec:\n  owner: shop\n", "create", "-f", "-")
		uid := kubectl(t, k, "", "get", "gadget", "g1", "-o", "jsonpath={.metadata.uid}")
		for i := range 3 {
			kubectl(t, k, ownedManifest("shop", fmt.Sprint(i), "g1", uid), "create", "-f", "-")
		}
		if out := kubectl(t, k, "", "get", "wd,cm", "-n", "shop", "-o", "name"); strings.Count(out, "widget.stable.example.com/w-") != 3 || strings.Count(out, "configmap/cm-") != 3 {
			t.Fatalf("dependents:\n%s", out)
		}
		out := kubectl(t, k, "", "delete", "gadget", "g1", "--cascade=foreground", "--timeout=30s")
		if !strings.Contains(out, `gadget.stable.example.com "g1" deleted`) {
			t.Errorf("delete: %s", out)
		}
		// kubectl waited for the gadget to go, which it does only after
		// its blocking dependents.
		if out := kubectl(t, k, "", "get", "wd,cm", "-n", "shop", "-o", "name"); strings.Contains(out, "w-") || strings.Contains(out, "cm-") {
			t.Errorf("dependents left after the owner went:\n%s", out)
		}
	})

	t.Run("events", func(t *testing.T) {
		kubectl(t, k, widgetManifest("evw", "blue"), "create", "-f", "-")
		uid := kubectl(t, k, "", "get", "wd", "evw", "-o", "jsonpath={.metadata.uid}")
		event := fmt.Sprintf(`apiVersion: v1
kind: Event
metadata:
  name: evw.1
involvedObject:
  apiVersion: stable.example.com/v1
  kind: Widget
  name: evw
  namespace: default
  uid: %s
reason: Scaled
message: scaled up to 3
type: Normal
source:
  component: widget-controller
firstTimestamp: "2026-01-01T00:00:00Z"
lastTimestamp: "2026-01-01T00:00:00Z"
count: 1
`, uid)
		kubectl(t, k, event, "create", "-f", "-")
		out := kubectl(t, k, "", "get", "events")
		header := strings.Fields(strings.SplitN(out, "\n", 2)[0])
		if strings.Join(header, " ") != "LAST SEEN TYPE REASON OBJECT MESSAGE" {
			t.Errorf("get events header %v:\n%s", header, out)
		}
		if !rowHas(out, "Normal", "Scaled", "widget/evw", "scaled", "up", "to", "3") {
			t.Errorf("get events:\n%s", out)
		}
		out = kubectl(t, k, "", "get", "events", "--field-selector", "involvedObject.name=evw", "-o", "name")
		if strings.TrimSpace(out) != "event/evw.1" {
			t.Errorf("field selector: %q", out)
		}
		if out := kubectl(t, k, "", "get", "events", "--field-selector", "involvedObject.name=other", "-o", "name"); strings.TrimSpace(out) != "" {
			t.Errorf("field selector of another object: %q", out)
		}
		out = kubectl(t, k, "", "describe", "wd", "evw")
		if !strings.Contains(out, "Events:") || !rowHas(out, "Normal", "Scaled", "widget-controller", "scaled", "up", "to", "3") {
			t.Errorf("describe shows no event:\n%s", out)
		}
	})

	t.Run("core tables", func(t *testing.T) {
		kubectl(t, k, "", "create", "secret", "generic", "s1", "--from-literal=a=b", "--from-literal=c=d")
		out := kubectl(t, k, "", "get", "secrets")
		if !rowHas(out, "s1", "Opaque", "2") || !strings.HasPrefix(out, "NAME") || !strings.Contains(out, "TYPE") {
			t.Errorf("get secrets:\n%s", out)
		}
		if out := kubectl(t, k, "", "get", "secrets", "--field-selector", "type=Opaque", "-o", "name"); !strings.Contains(out, "secret/s1") {
			t.Errorf("secrets by type: %s", out)
		}
		kubectl(t, k, "", "create", "configmap", "c3", "--from-literal=a=b")
		if out := kubectl(t, k, "", "get", "cm", "c3"); !rowHas(out, "c3", "1") || !strings.Contains(out, "DATA") {
			t.Errorf("get cm:\n%s", out)
		}
		kubectl(t, k, "", "create", "serviceaccount", "robot")
		// kube 1.37 prints a ServiceAccount's name and age only.
		if out := kubectl(t, k, "", "get", "sa", "robot"); !headerIs(out, "NAME", "AGE") || !rowHas(out, "robot") {
			t.Errorf("get sa:\n%s", out)
		}
		kubectl(t, k, "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: l1\nspec:\n  holderIdentity: node-1\n", "create", "-f", "-")
		if out := kubectl(t, k, "", "get", "leases", "l1"); !headerIs(out, "NAME", "HOLDER", "AGE") || !rowHas(out, "l1", "node-1") {
			t.Errorf("get leases:\n%s", out)
		}
		out = kubectl(t, k, "", "get", "events", "-o", "wide")
		if !headerIs(out, "LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME") {
			t.Errorf("get events -o wide:\n%s", out)
		}
	})
}

// headerIs reports whether out's first line has exactly these column
// names, separated as kubectl separates them (three spaces or more).
func headerIs(out string, names ...string) bool {
	header, _, _ := strings.Cut(out, "\n")
	got := regexp.MustCompile(`\s{3,}`).Split(strings.TrimSpace(header), -1)
	return strings.Join(got, "|") == strings.Join(names, "|")
}

// rowHas reports whether a line of out has all the fields, in order.
func rowHas(out string, fields ...string) bool {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		i := 0
		for _, x := range f {
			if i < len(fields) && x == fields[i] {
				i++
			}
		}
		if i == len(fields) {
			return true
		}
	}
	return false
}
