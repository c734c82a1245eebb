package v1

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	stablev1 "github.com/kapi-dev/kapi/envtest/internal/widgetwebhook/api/v1"
)

// outcome is what a client sees of one write: the spec it gets back,
// or the Status of the error, and whether the object is then stored.
type outcome struct {
	Spec   *stablev1.WidgetSpec
	Status *metav1.Status
	Stored bool
}

// outcomes are the writes of widgetScenario.
type outcomes struct {
	Defaulted, DryRun, TooMany, ColorChange outcome
}

// widgetScenario makes the writes the webhooks decide on, in namespace
// ns, with objects carrying labels, through c.
func widgetScenario(ctx context.Context, t *testing.T, c client.Client, ns string, labels map[string]string) outcomes {
	t.Helper()
	newWidget := func(name string, spec stablev1.WidgetSpec) *stablev1.Widget {
		return &stablev1.Widget{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}, Spec: spec}
	}
	var got outcomes

	w := newWidget("ae-defaulted", stablev1.WidgetSpec{})
	got.Defaulted = write(ctx, t, c, w, c.Create(ctx, w))

	dry := newWidget("ae-dry-run", stablev1.WidgetSpec{})
	got.DryRun = write(ctx, t, c, dry, c.Create(ctx, dry, client.DryRunAll))

	many := newWidget("ae-eleven", stablev1.WidgetSpec{Replicas: ptr.To[int32](11)})
	got.TooMany = write(ctx, t, c, many, c.Create(ctx, many))

	changed := w.DeepCopy()
	changed.Spec.Color = "red"
	got.ColorChange = write(ctx, t, c, changed, c.Update(ctx, changed))
	if err := c.Get(ctx, client.ObjectKeyFromObject(w), changed); err != nil || changed.Spec.Color != "blue" {
		t.Errorf("after the refused update: color %q, %v; want blue", changed.Spec.Color, err)
	}
	return got
}

// write is the outcome of a write of w that returned err.
func write(ctx context.Context, t *testing.T, c client.Client, w *stablev1.Widget, err error) outcome {
	t.Helper()
	var o outcome
	var se *apierrors.StatusError
	switch {
	case err == nil:
		o.Spec = w.Spec.DeepCopy()
	case errors.As(err, &se):
		st := se.ErrStatus
		st.TypeMeta, st.ListMeta = metav1.TypeMeta{}, metav1.ListMeta{}
		o.Status = &st
	default:
		t.Fatalf("writing %s: %v", w.Name, err)
	}
	err = c.Get(ctx, client.ObjectKeyFromObject(w), &stablev1.Widget{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("reading %s: %v", w.Name, err)
	}
	o.Stored = err == nil
	return o
}

// wantOutcomes is what kube-apiserver v1.37 answers with the sample's
// webhooks installed (TestWidgetWebhookOnReference checks it there).
func wantOutcomes() outcomes {
	defaulted := &stablev1.WidgetSpec{Replicas: ptr.To[int32](1), Color: "blue"}
	invalid := func(name, message string, cause metav1.StatusCause) *metav1.Status {
		return &metav1.Status{
			Status: metav1.StatusFailure, Code: 422, Reason: metav1.StatusReasonInvalid,
			Message: `admission webhook "vwidget-v1.kb.io" denied the request: ` + message,
			Details: &metav1.StatusDetails{Name: name, Group: "stable.example.com", Kind: "Widget",
				Causes: []metav1.StatusCause{cause}},
		}
	}
	return outcomes{
		Defaulted: outcome{Spec: defaulted, Stored: true},
		DryRun:    outcome{Spec: defaulted, Stored: false},
		TooMany: outcome{Status: invalid("ae-eleven",
			`Widget.stable.example.com "ae-eleven" is invalid: spec.replicas: Invalid value: 11: must be 10 or fewer`,
			metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.replicas",
				Message: "Invalid value: 11: must be 10 or fewer"})},
		ColorChange: outcome{Status: invalid("ae-defaulted",
			`Widget.stable.example.com "ae-defaulted" is invalid: spec.color: Invalid value: "red": field is immutable`,
			metav1.StatusCause{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.color",
				Message: `Invalid value: "red": field is immutable`}),
			Stored: true},
	}
}

// TestWidgetWebhook: the webhooks installed from config/webhook default
// a created Widget (also on a dry run, which stores nothing), refuse
// more than ten replicas and a change of color, with the Status kube
// answers for an Invalid denial.
func TestWidgetWebhook(t *testing.T) {
	ctx := context.Background()
	got := widgetScenario(ctx, t, k8sClient, "default", nil)
	if diff := cmp.Diff(wantOutcomes(), got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}
