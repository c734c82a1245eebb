package apiserver

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/schemaplan"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// compiledBenchKind is the kind of benchWidget with its schema compiled,
// and a copy of its plan that defaults through the JSON form only.
func compiledBenchKind(t testing.TB) (plan, viaJSON *schemaplan.Plan) {
	plan, _ = compiledPlan(t, func() meta.Object { return &benchWidget{} })
	j := *plan
	j.Fields = append([]schemaplan.FieldPlan(nil), plan.Fields...)
	for i := range j.Fields {
		j.Fields[i].Defaulter = nil
	}
	return plan, &j
}

func randomBenchWidget(r *rand.Rand) *benchWidget {
	w := benchObject()
	w.Spec.Replicas = nil
	if r.IntN(2) == 0 {
		n := int32(r.IntN(3))
		w.Spec.Replicas = &n
	}
	w.Spec.Color = []string{"", "red"}[r.IntN(2)]
	switch r.IntN(3) {
	case 0:
		w.Spec.Tags = nil
	case 1:
		w.Spec.Tags = []string{}
	}
	w.Spec.Ports = nil
	if n := r.IntN(5); n > 0 {
		w.Spec.Ports = make([]benchPort, n-1)
		for i := range w.Spec.Ports {
			w.Spec.Ports[i] = benchPort{Name: string(rune('a' + i)), Port: int32(r.IntN(2)), Protocol: []string{"", "TCP", "UDP"}[r.IntN(3)]}
		}
	}
	return w
}

// TestSchemaDefaultsPlanMatchesJSON checks that typed defaulting along the
// schema's plan stores the same bytes as defaulting the JSON form.
func TestSchemaDefaultsPlanMatchesJSON(t *testing.T) {
	plan, viaJSON := compiledBenchKind(t)
	if plan.Fields[0].Defaulter == nil {
		t.Fatal("the spec's defaults have no plan")
	}
	r := rand.New(rand.NewPCG(3, 4))
	changed := 0
	for range 3000 {
		a := randomBenchWidget(r)
		before, _ := json.Marshal(a)
		var b benchWidget
		if err := json.Unmarshal(before, &b); err != nil {
			t.Fatal(err)
		}
		if err := plan.ApplyDefaults(a); err != nil {
			t.Fatal(err)
		}
		if err := viaJSON.ApplyDefaults(&b); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(a)
		want, _ := json.Marshal(&b)
		if string(got) != string(want) {
			t.Fatalf("defaults of %s:\n got %s\nwant %s", before, got, want)
		}
		if string(got) != string(before) {
			changed++
		}
	}
	if changed < 1000 {
		t.Errorf("only %d of 3000 objects had defaults applied", changed)
	}
}

// fallbackWidget's spec embeds a struct, which the plan does not follow:
// its defaults go through the JSON form.
type fallbackWidget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            fallbackSpec `json:"spec,omitempty"`
}

type fallbackSpec struct {
	benchPort
	Replicas *int32 `json:"replicas,omitempty" default:"2"`
}

func TestSchemaDefaultsFallback(t *testing.T) {
	plan, _ := compiledPlan(t, func() meta.Object { return &fallbackWidget{} })
	if len(plan.Fields) != 1 || plan.Fields[0].Defaulter != nil {
		t.Fatalf("fields %+v: want the spec defaulted through its JSON form", plan.Fields)
	}
	w := &fallbackWidget{}
	if err := plan.ApplyDefaults(w); err != nil {
		t.Fatal(err)
	}
	if w.Spec.Protocol != "TCP" || w.Spec.Replicas == nil || *w.Spec.Replicas != 2 {
		t.Errorf("spec = %+v, want protocol TCP and replicas 2", w.Spec)
	}
}

// compiledPlan is the schema plan of a kind of objects newObj makes,
// with the schema reflected from their type (returned too) and no rule
// engine.
func compiledPlan(tb testing.TB, newObj func() meta.Object) (*schemaplan.Plan, *schema.Schema) {
	tb.Helper()
	k := Kind{New: newObj}
	s, err := schema.FromType(registry.TypeOf(k.New()))
	if err != nil {
		tb.Fatal(err)
	}
	k.Schema = s
	plan, err := schemaplan.Compile(k.Schema, k.New, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return plan, s
}
