package api_test

import (
	"math/rand/v2"
	"testing"
	"testing/quick"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/examples/widgets/api"
	"github.com/kapi-dev/kapi/meta"
)

// randomWidget is a Widget with random metadata, spec and status, nil
// and empty where a random choice says so.
func randomWidget(r *rand.Rand) *api.Widget {
	str := func() string {
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return string(b)
	}
	w := &api.Widget{ObjectMeta: meta.ObjectMeta{Name: str(), Namespace: str(), UID: str(), ResourceVersion: "7",
		Generation: r.Int64N(10)}}
	if r.IntN(2) == 0 {
		w.Labels = map[string]string{str(): str()}
	}
	if r.IntN(3) > 0 {
		n := r.Int32N(1000)
		w.Spec.Replicas = &n
	}
	w.Spec.Color, w.Spec.Size = str(), str()
	for range r.IntN(3) {
		w.Spec.Tags = append(w.Spec.Tags, str())
	}
	for range r.IntN(3) {
		w.Spec.Ports = append(w.Spec.Ports, api.WidgetPort{Name: str(), Port: r.Int32N(65536), Protocol: str()})
	}
	w.Status = api.WidgetStatus{ReadyReplicas: r.Int32N(10), ObservedGeneration: r.Int64N(10), Selector: str()}
	return w
}

// Converting to v1beta1 and back gives the Widget back, and v1beta1's
// count is v1's replicas, for random Widgets.
func TestWidgetV1beta1RoundTrip(t *testing.T) {
	check := func(seed1, seed2 uint64) bool {
		hub := randomWidget(rand.New(rand.NewPCG(seed1, seed2)))
		var beta api.WidgetV1beta1
		if err := beta.ConvertFrom(hub); err != nil {
			t.Fatal(err)
		}
		if beta.Spec.Count != hub.Spec.Replicas || beta.Name != hub.Name {
			t.Errorf("ConvertFrom(%+v) = %+v", hub, beta)
		}
		back := &api.Widget{}
		if err := beta.ConvertTo(back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(hub, back); diff != "" {
			t.Errorf("hub → v1beta1 → hub (-want +got):\n%s", diff)
			return false
		}
		// And the spoke's round trip through the hub.
		var again api.WidgetV1beta1
		if err := again.ConvertFrom(back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(beta, again); diff != "" {
			t.Errorf("v1beta1 → hub → v1beta1 (-want +got):\n%s", diff)
			return false
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 500}); err != nil {
		t.Error(err)
	}
}
