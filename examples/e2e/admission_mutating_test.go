package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

// TestKubectlMutatingAdmissionPolicy: a MutatingAdmissionPolicy's
// mutation is stored and visible on read, and owned by no field manager, a policy whose expression does
// not compile is refused when written, and a ValidatingAdmissionPolicy
// reading a field the Widget does not have gets kube's type-checking
// warning in its status.
func TestKubectlMutatingAdmissionPolicy(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)
	policy, err := os.ReadFile("testdata/widget-color-mutation.yaml")
	if err != nil {
		t.Fatal(err)
	}
	kubectl(t, k, string(policy), "apply", "-f", "-")
	kubectl(t, k, "apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: plain\nspec:\n  replicas: 1\n", "create", "-f", "-")
	got := kubectl(t, k, "", "get", "widget", "plain", "-o", "jsonpath={.metadata.labels.painted} {.spec.color}")
	if got != "true blue" {
		t.Errorf("mutated Widget reads %q, want %q", got, "true blue")
	}
	// What the policy set is owned by no one, as on the reference:
	// kube-apiserver records managedFields before mutating admission.
	owned := kubectl(t, k, "", "get", "widget", "plain", "-o", "jsonpath={.metadata.managedFields[*].manager} {.metadata.managedFields[*].fieldsV1}")
	if want := `kubectl-create {"f:spec":{".":{},"f:replicas":{}}}`; owned != want {
		t.Errorf("managedFields %s, want %s", owned, want)
	}

	errOut := kubectlFails(t, k, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: broken
spec:
  validations:
  - expression: "object.spec.replicas +"
`, "create", "-f", "-")
	if !strings.Contains(errOut, `spec.validations[0].expression: Invalid value: "object.spec.replicas +": compilation failed`) {
		t.Errorf("a policy that does not compile: %s", errOut)
	}

	kubectl(t, k, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: typo
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["stable.example.com"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["widgets"]
  validations:
  - expression: "object.spec.replicaz > 0"
`, "create", "-f", "-")
	var warning string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		warning = kubectl(t, k, "", "get", "validatingadmissionpolicy", "typo", "-o", "jsonpath={.status.typeChecking.expressionWarnings[0].warning}")
		if warning != "" {
			break
		}
	}
	if !strings.Contains(warning, "undefined field 'replicaz'") {
		t.Errorf("type checking warning %q, want one naming the undefined field", warning)
	}
}
