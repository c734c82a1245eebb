package e2e

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/kapi-dev/kapi/examples/internal/kubectltest"
)

// TestKubectlCELRules applies Widgets that break the example server's CEL
// rules with kubectl: the rule's message is what kubectl prints, and the
// transition rules hold serial once set while other fields still change.
func TestKubectlCELRules(t *testing.T) {
	ts := startServer(t)
	k := kubectltest.New(t, ts.URL)

	t.Run("rule with a messageExpression", func(t *testing.T) {
		m := strings.Replace(widgetManifest("cel-bad", "red"), "  color: red", "  color: red\n  serial: X1", 1)
		errOut := kubectlFails(t, k, m, "apply", "-f", "-")
		want := `The Widget "cel-bad" is invalid: spec.serial: Invalid value: serial X1 must be SN- followed by digits`
		if !strings.Contains(errOut, want) {
			t.Errorf("kubectl apply printed:\n%s\nwant it to contain:\n%s", errOut, want)
		}
	})

	t.Run("transition rules", func(t *testing.T) {
		m := strings.Replace(widgetManifest("cel-serial", "red"), "  color: red", "  color: red\n  serial: SN-1", 1)
		kubectl(t, k, m, "apply", "-f", "-")
		errOut := kubectlFails(t, k, strings.Replace(m, "SN-1", "SN-2", 1), "apply", "-f", "-")
		if want := `spec.serial: Invalid value: "SN-2": serial is immutable once set`; !strings.Contains(errOut, want) {
			t.Errorf("changing serial printed:\n%s\nwant it to contain:\n%s", errOut, want)
		}
		errOut = kubectlFails(t, k, strings.Replace(m, "  serial: SN-1\n", "", 1), "apply", "-f", "-")
		if want := `spec.serial: Forbidden: serial may not be removed once set`; !strings.Contains(errOut, want) {
			t.Errorf("removing serial printed:\n%s\nwant it to contain:\n%s", errOut, want)
		}
		out := kubectl(t, k, strings.Replace(m, "color: red", "color: blue", 1), "apply", "-f", "-")
		if !strings.Contains(out, "configured") {
			t.Errorf("changing color: %s", out)
		}
	})
}

// TestSprocketCELRule checks a rule of a run-time kind's OpenAPI schema,
// with a messageExpression, reaches client-go as a 422 cause.
func TestSprocketCELRule(t *testing.T) {
	ts := startServer(t)
	dc, err := dynamic.NewForConfig(restConfig(ts.URL))
	if err != nil {
		t.Fatal(err)
	}
	sprockets := dc.Resource(sprocketsGVR).Namespace("default")
	_, err = sprockets.Create(context.Background(), newSprocket("gloss", map[string]any{"teeth": int64(6), "finish": "gloss"}), metav1.CreateOptions{})
	if !errors.IsInvalid(err) {
		t.Fatalf("create: %v", err)
	}
	causes := err.(errors.APIStatus).Status().Details.Causes
	if len(causes) != 1 || causes[0].Field != "spec.teeth" || causes[0].Message != "Invalid value: a gloss sprocket needs at least 12 teeth" {
		t.Errorf("causes: %+v", causes)
	}
}
