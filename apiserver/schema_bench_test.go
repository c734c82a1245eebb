package apiserver

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kapi-dev/kapi/apiserver/internal/handlers"
	"github.com/kapi-dev/kapi/apiserver/internal/schemaplan"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/status"
)

type benchWidget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            benchSpec `json:"spec,omitempty"`
}

type benchSpec struct {
	Replicas *int32      `json:"replicas,omitempty" default:"1" minimum:"0" maximum:"1000"`
	Color    string      `json:"color,omitempty" pattern:"^[a-z]+$"`
	Tags     []string    `json:"tags,omitempty" listType:"set"`
	Ports    []benchPort `json:"ports,omitempty" listType:"map" listMapKey:"name"`
}

type benchPort struct {
	Name     string `json:"name"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol,omitempty" default:"\"TCP\""`
}

func benchObject() *benchWidget {
	n := int32(3)
	w := &benchWidget{Spec: benchSpec{Replicas: &n, Color: "red", Tags: []string{"a", "b", "c"}}}
	w.Name, w.Namespace = "w", "default"
	w.Labels = map[string]string{"app": "bench", "tier": "backend"}
	for _, p := range []string{"http", "https", "metrics"} {
		w.Spec.Ports = append(w.Spec.Ports, benchPort{Name: p, Port: 80, Protocol: "TCP"})
	}
	return w
}

// BenchmarkSchemaPlan measures schema defaulting and validation of a
// typed object through the JSON form of its spec, next to encoding the
// whole object once (which every write does to store it).
func BenchmarkSchemaPlan(b *testing.B) {
	plan, _ := compiledPlan(b, func() meta.Object { return &benchWidget{} })
	obj := benchObject()
	b.Run("encode-object", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := json.Marshal(obj); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("default+validate", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if err := plan.ApplyDefaults(obj); err != nil {
				b.Fatal(err)
			}
			if errs, err := plan.Validate(obj, nil, false); err != nil || len(errs) > 0 {
				b.Fatal(errs, err)
			}
		}
	})
	// required-plan is what every typed write pays to learn that its
	// required fields were all sent; required-body is what a write with a
	// required field at its zero value pays to look at its body.
	body, err := json.Marshal(obj)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("required-plan", func(b *testing.B) {
		b.ReportAllocs()
		v := reflect.ValueOf(obj)
		for range b.N {
			if plan.Required.MayMiss(v) {
				b.Fatal("all required fields are set")
			}
		}
	})
	b.Run("required-body", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			x, err := handlers.BodyJSON("application/json", body)()
			if err != nil {
				b.Fatal(err)
			}
			if errs := plan.Root.MissingRequired(status.Path{}, x); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	// default-plan and default-json default an object missing its
	// defaults along the schema's plan and through the JSON form.
	_, viaJSON := compiledBenchKind(b)
	for _, c := range []struct {
		name string
		plan *schemaplan.Plan
	}{{"default-plan", plan}, {"default-json", viaJSON}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				b.StopTimer()
				w := benchObject()
				w.Spec.Replicas, w.Spec.Ports[0].Protocol = nil, ""
				b.StartTimer()
				if err := c.plan.ApplyDefaults(w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// validate-decoded validates the object decoded from JSON, which the
	// field manager's decoding of a write gives it.
	b.Run("validate-decoded", func(b *testing.B) {
		enc, err := json.Marshal(obj)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for range b.N {
			b.StopTimer()
			decoded, err := patch.DecodeObject(enc)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if errs, err := plan.Validate(obj, decoded, false); err != nil || len(errs) > 0 {
				b.Fatal(errs, err)
			}
		}
	})
}
