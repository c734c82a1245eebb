package apiserver

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/internal/typedjson"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
)

// defaultedThing is a typed kind whose form may hold nulls (mode), with
// a default of its own (level) and defaults below a list.
type defaultedThing struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            defaultedSpec `json:"spec,omitempty"`
}

type defaultedSpec struct {
	Replicas *int32            `json:"replicas,omitempty" default:"1" minimum:"0" maximum:"10"`
	Level    *int32            `json:"level,omitempty" default:"2" maximum:"3"`
	Mode     *string           `json:"mode" pattern:"^[a-z]+$"`
	Color    string            `json:"color,omitempty" pattern:"^[a-z]+$"`
	Tags     []string          `json:"tags,omitempty" listType:"set"`
	Ports    []benchPort       `json:"ports,omitempty" listType:"map" listMapKey:"name"`
	Extra    map[string]string `json:"extra,omitempty"`
}

// randomDefaultedThing is a random defaultedThing, valid or not.
func randomDefaultedThing(rng *rand.Rand) *defaultedThing {
	n := func(v int32) *int32 { return &v }
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	w := &defaultedThing{}
	w.Name = "t"
	s := &w.Spec
	if rng.IntN(2) == 0 {
		s.Replicas = n(rng.Int32N(14) - 2)
	}
	if rng.IntN(2) == 0 {
		s.Level = n(rng.Int32N(6))
	}
	if rng.IntN(2) == 0 {
		m := pick("a", "B", "")
		s.Mode = &m
	}
	s.Color = pick("", "red", "Red")
	for range rng.IntN(3) {
		s.Tags = append(s.Tags, pick("a", "b"))
	}
	for range rng.IntN(3) {
		s.Ports = append(s.Ports, benchPort{Name: pick("http", "dns", ""), Port: rng.Int32N(3), Protocol: pick("", "UDP")})
	}
	if rng.IntN(2) == 0 {
		s.Extra = map[string]string{"k": pick("", "v")}
	}
	return w
}

// TestValidateNullFreeFormMatchesGeneralPath: a form without nulls,
// defaulted along its defaults' paths only, is validated with the same
// errors, and ends as the same defaulted form (the one the kind's rules
// read next), as one defaulted the general way; on a table of objects
// and on random ones.
func TestValidateNullFreeFormMatchesGeneralPath(t *testing.T) {
	plan, s := compiledPlan(t, func() meta.Object { return &defaultedThing{} })
	d := typedjson.New(reflect.TypeFor[*defaultedThing]())
	mode := "m"
	full := func(w *defaultedThing) { w.Spec.Mode = &mode }
	objects := []struct {
		name string
		edit func(w *defaultedThing)
	}{
		{"null mode", func(*defaultedThing) {}},
		{"defaults level", full},
		{"port without protocol", func(w *defaultedThing) { full(w); w.Spec.Ports = []benchPort{{Name: "a"}} }},
		{"all set", func(w *defaultedThing) {
			full(w)
			one := int32(1)
			w.Spec.Replicas, w.Spec.Level = &one, &one
			w.Spec.Ports = []benchPort{{Name: "a", Protocol: "UDP"}}
		}},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 500 {
		objects = append(objects, struct {
			name string
			edit func(w *defaultedThing)
		}{fmt.Sprint("random ", i), func(w *defaultedThing) { *w = *randomDefaultedThing(rng) }})
	}
	nullFree := 0
	for _, tc := range objects {
		obj := &defaultedThing{}
		obj.Name = "t"
		tc.edit(obj)
		// The reference: the object's fields encoded apart, and its
		// form defaulted the general way.
		want, err := plan.Validate(obj, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		general, ok := d.Form(obj, patch.DecodeValue)
		if !ok {
			t.Fatalf("%s: no form", tc.name)
		}
		s.Properties["spec"].ApplyDefaults(general["spec"])
		fast, nulls, ok := d.FormNulls(obj, patch.DecodeValue)
		if !ok {
			t.Fatalf("%s: no form", tc.name)
		}
		got, err := plan.Validate(obj, fast, !nulls)
		if err != nil {
			t.Fatal(err)
		}
		if render(got) != render(want) {
			t.Errorf("%s: errors\n%v\nwant\n%v", tc.name, render(got), render(want))
		}
		if diff := cmp.Diff(general, fast); diff != "" {
			t.Errorf("%s: form (-general +fast):\n%s", tc.name, diff)
		}
		if !nulls {
			nullFree++
		}
	}
	if nullFree < len(objects)/4 || nullFree == len(objects) {
		t.Errorf("%d of %d forms without nulls", nullFree, len(objects))
	}
}
