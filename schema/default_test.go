package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestApplyDefaults(t *testing.T) {
	s := sprocketSchema(t)
	tests := []struct {
		name, in, want string
		changed        bool
	}{
		{"missing spec is not created", `{}`, `{}`, false},
		{"missing properties of a present object", `{"spec":{"size":1}}`,
			`{"spec":{"config":{"depth":3},"mode":"slow","size":1}}`, true},
		{"set values are kept", `{"spec":{"size":1,"mode":"fast","config":{"depth":9}}}`,
			`{"spec":{"config":{"depth":9},"mode":"fast","size":1}}`, false},
		{"null of a non-nullable field takes the default", `{"spec":{"mode":null,"config":{"depth":null}}}`,
			`{"spec":{"config":{"depth":3},"mode":"slow"}}`, true},
		{"null without a default is dropped", `{"spec":{"size":null,"mode":"fast","config":{}}}`,
			`{"spec":{"config":{"depth":3},"mode":"fast"}}`, true},
		{"nullable null is kept", `{"spec":{"note":null,"mode":"fast","config":{"depth":1}}}`,
			`{"spec":{"config":{"depth":1},"mode":"fast","note":null}}`, false},
		{"array items", `{"spec":{"mode":"fast","config":{"depth":1},"teeth":[{"name":"a"},{"name":"b","pitch":1}]}}`,
			`{"spec":{"config":{"depth":1},"mode":"fast","teeth":[{"name":"a","pitch":5},{"name":"b","pitch":1}]}}`, true},
		{"unknown fields are left alone", `{"spec":{"mode":"fast","config":{"depth":1},"extra":{"x":null}},"other":{"y":1}}`,
			`{"other":{"y":1},"spec":{"config":{"depth":1},"extra":{"x":null},"mode":"fast"}}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := mustJSON(t, tc.in)
			changed := s.ApplyDefaults(x)
			b, _ := json.Marshal(x)
			if string(b) != tc.want || changed != tc.changed {
				t.Errorf("got %s (changed %v), want %s (changed %v)", b, changed, tc.want, tc.changed)
			}
		})
	}
}

// TestApplyDefaultsCopies checks that a default is copied, so that
// changing a defaulted object leaves the schema and other objects alone.
func TestApplyDefaultsCopies(t *testing.T) {
	s := &Schema{Type: "object", Properties: map[string]*Schema{
		"m": {Type: "object", Default: map[string]any{"a": []any{"x"}}, XPreserveUnknownFields: true},
	}}
	one, two := map[string]any{}, map[string]any{}
	s.ApplyDefaults(one)
	s.ApplyDefaults(two)
	one["m"].(map[string]any)["a"].([]any)[0] = "changed"
	if b, _ := json.Marshal(two); string(b) != `{"m":{"a":["x"]}}` {
		t.Errorf("second object: %s", b)
	}
	if b, _ := json.Marshal(s.Properties["m"].Default); string(b) != `{"a":["x"]}` {
		t.Errorf("schema default: %s", b)
	}
}

func TestPrune(t *testing.T) {
	s := sprocketSchema(t)
	tests := []struct {
		name, in, want, dropped string
	}{
		{"known fields", `{"spec":{"size":1,"tags":["a"]}}`, `{"spec":{"size":1,"tags":["a"]}}`, ""},
		{"unknown fields at every level", `{"spec":{"size":1,"foo":1,"teeth":[{"name":"a","bar":2}]},"top":true}`,
			`{"spec":{"size":1,"teeth":[{"name":"a"}]}}`, "spec.foo,spec.teeth[0].bar,top"},
		{"preserved object keeps unknown fields but prunes known ones", `{"spec":{"extra":{"x":{"y":1},"known":{"a":"b","z":1}}}}`,
			`{"spec":{"extra":{"known":{"a":"b"},"x":{"y":1}}}}`, "spec.extra.known.z"},
		{"additional properties are known", `{"spec":{"labels":{"any":"thing"}}}`, `{"spec":{"labels":{"any":"thing"}}}`, ""},
		{"embedded metadata is ObjectMeta", `{"spec":{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","bogus":1},"spec":{}}}}`,
			`{"spec":{"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":{}}}}`, "spec.template.metadata.bogus"},
		{"wrong type is left for validation", `{"spec":{"size":{"a":1}}}`, `{"spec":{"size":{"a":1}}}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := mustJSON(t, tc.in)
			dropped := strings.Join(s.Prune(x), ",")
			b, _ := json.Marshal(x)
			if string(b) != tc.want || dropped != tc.dropped {
				t.Errorf("got %s dropping %q, want %s dropping %q", b, dropped, tc.want, tc.dropped)
			}
		})
	}
}

// PruneNulls drops the nulls a schema neither allows nor defaults, and
// adds no defaults, as kube-apiserver treats a converted custom resource.
func TestPruneNulls(t *testing.T) {
	s := sprocketSchema(t)
	tests := []struct {
		name, in, want string
		changed        bool
	}{
		{"null without a default is dropped", `{"spec":{"size":null,"name":"ab"}}`, `{"spec":{"name":"ab"}}`, true},
		{"null with a default is kept, not defaulted", `{"spec":{"mode":null}}`, `{"spec":{"mode":null}}`, false},
		{"missing fields are not defaulted", `{"spec":{"teeth":[{"name":"a"}]}}`, `{"spec":{"teeth":[{"name":"a"}]}}`, false},
		{"nullable null is kept", `{"spec":{"note":null}}`, `{"spec":{"note":null}}`, false},
		{"in array items and map values", `{"spec":{"teeth":[{"name":null}],"labels":{"a":null}}}`, `{"spec":{"labels":{},"teeth":[{}]}}`, true},
		{"unknown fields are left alone", `{"spec":{"zzz":null}}`, `{"spec":{"zzz":null}}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := mustJSON(t, tc.in)
			changed := s.PruneNulls(x)
			b, _ := json.Marshal(x)
			if string(b) != tc.want || changed != tc.changed {
				t.Errorf("got %s (changed %v), want %s (changed %v)", b, changed, tc.want, tc.changed)
			}
		})
	}
}
