package cel

import (
	"strings"
	"testing"
)

const transitionDoc = `
type: object
properties:
  spec:
    type: object
    properties:
      size:
        type: string
        maxLength: 10
        x-kubernetes-validations:
        - rule: "self == oldSelf"
          message: size is immutable once set
      level:
        type: integer
        x-kubernetes-validations:
        - rule: "self >= 0"
          message: level may not be negative
        - rule: "!oldSelf.hasValue() || self >= oldSelf.value()"
          message: level may only grow
          optionalOldSelf: true
      labels:
        type: object
        maxProperties: 10
        additionalProperties:
          type: string
          maxLength: 10
          x-kubernetes-validations:
          - rule: "self == oldSelf"
            message: labels do not change
      ports:
        type: array
        maxItems: 10
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          required: [name]
          properties:
            name: {type: string, maxLength: 10}
            port:
              type: integer
              x-kubernetes-validations:
              - rule: "self == oldSelf"
                message: a port's number is immutable
              - rule: "self < 65536"
                message: port out of range
      tags:
        type: array
        maxItems: 10
        items:
          type: string
          maxLength: 10
          x-kubernetes-validations:
          - rule: "self != 'bad'"
            message: bad tag
`

func spec(s map[string]any) map[string]any { return map[string]any{"spec": s} }

func port(name string, n int64) map[string]any { return map[string]any{"name": name, "port": n} }

// TestTransitionRules checks rules naming oldSelf run on updates only,
// where the old value correlates: properties, map keys and list-map
// items by key; with optionalOldSelf they also run on creates.
func TestTransitionRules(t *testing.T) {
	v := compile(t, transitionDoc)
	tests := []struct {
		name     string
		obj, old map[string]any
		want     string
	}{
		{name: "create sets size", obj: spec(map[string]any{"size": "L"})},
		{name: "size unchanged", obj: spec(map[string]any{"size": "L"}), old: spec(map[string]any{"size": "L"})},
		{name: "size changed", obj: spec(map[string]any{"size": "M"}), old: spec(map[string]any{"size": "L"}),
			want: `spec.size: Invalid value: "M": size is immutable once set`},
		{name: "size set later", obj: spec(map[string]any{"size": "M"}), old: spec(map[string]any{})},
		{name: "optional oldSelf on create", obj: spec(map[string]any{"level": int64(3)})},
		{name: "optional oldSelf grows", obj: spec(map[string]any{"level": int64(4)}), old: spec(map[string]any{"level": int64(3)})},
		{name: "optional oldSelf shrinks", obj: spec(map[string]any{"level": int64(2)}), old: spec(map[string]any{"level": int64(3)}),
			want: "spec.level: Invalid value: 2: level may only grow"},
		{name: "map value changed", obj: spec(map[string]any{"labels": map[string]any{"a": "2"}}),
			old: spec(map[string]any{"labels": map[string]any{"a": "1"}}), want: `spec.labels[a]: Invalid value: "2": labels do not change`},
		{name: "map value added", obj: spec(map[string]any{"labels": map[string]any{"a": "1", "b": "2"}}),
			old: spec(map[string]any{"labels": map[string]any{"a": "1"}})},
		{name: "list-map item by key, reordered", obj: spec(map[string]any{"ports": []any{port("b", 2), port("a", 1)}}),
			old: spec(map[string]any{"ports": []any{port("a", 1), port("b", 2)}})},
		{name: "list-map item changed", obj: spec(map[string]any{"ports": []any{port("b", 3), port("a", 1)}}),
			old:  spec(map[string]any{"ports": []any{port("a", 1), port("b", 2)}}),
			want: "spec.ports[0].port: Invalid value: 3: a port's number is immutable"},
		{name: "list-map item new", obj: spec(map[string]any{"ports": []any{port("c", 3)}}),
			old: spec(map[string]any{"ports": []any{port("a", 1)}})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs, warns := check(v, tc.obj, tc.old)
			if got := joined(errs); got != tc.want || len(warns) > 0 {
				t.Errorf("errors:\n%s\nwant:\n%s\nwarnings: %v", got, tc.want, warns)
			}
		})
	}
}

// TestRatcheting checks that errors of unchanged values are warnings on
// updates, and errors again once the value changes or on create; errors
// of transition rules are never let through.
func TestRatcheting(t *testing.T) {
	v := compile(t, transitionDoc)
	tests := []struct {
		name       string
		obj, old   map[string]any
		want, warn string
	}{
		{name: "create", obj: spec(map[string]any{"level": int64(-1)}),
			want: "spec.level: Invalid value: -1: level may not be negative"},
		{name: "unchanged", obj: spec(map[string]any{"level": int64(-1), "size": "L"}), old: spec(map[string]any{"level": int64(-1)}),
			warn: "spec.level: Invalid value: -1: level may not be negative"},
		{name: "changed", obj: spec(map[string]any{"level": int64(-2)}), old: spec(map[string]any{"level": int64(-1)}),
			want: "spec.level: Invalid value: -2: level may not be negative\nspec.level: Invalid value: -2: level may only grow"},
		{name: "unchanged list-map item", obj: spec(map[string]any{"ports": []any{port("b", 70000), port("a", 1)}}),
			old:  spec(map[string]any{"ports": []any{port("a", 1), port("b", 70000)}}),
			warn: "spec.ports[0].port: Invalid value: 70000: port out of range"},
		{name: "unchanged atomic list", obj: spec(map[string]any{"tags": []any{"bad"}, "size": "S"}),
			old:  spec(map[string]any{"tags": []any{"bad"}}),
			warn: `spec.tags[0]: Invalid value: "bad": bad tag`},
		{name: "changed atomic list", obj: spec(map[string]any{"tags": []any{"bad", "good"}}),
			old:  spec(map[string]any{"tags": []any{"bad"}}),
			want: `spec.tags[0]: Invalid value: "bad": bad tag`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs, warns := check(v, tc.obj, tc.old)
			if got := joined(errs); got != tc.want || strings.Join(warns, "\n") != tc.warn {
				t.Errorf("errors:\n%s\nwant:\n%s\nwarnings: %q, want %q", got, tc.want, warns, tc.warn)
			}
		})
	}
}

// correlationDoc has transition rules on the items of list-type maps
// (one key and two), below a map's values and in atomic and granular
// maps, which correlate with old values as in kube-apiserver.
const correlationDoc = `
type: object
properties:
  spec:
    type: object
    properties:
      ports:
        type: array
        maxItems: 10
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name, protocol]
        items:
          type: object
          required: [name, protocol]
          x-kubernetes-validations:
          - rule: "self.port >= oldSelf.port"
            message: a port only grows
          properties:
            name: {type: string, maxLength: 10}
            protocol: {type: string, maxLength: 10}
            port: {type: integer}
      groups:
        type: object
        maxProperties: 10
        additionalProperties:
          type: array
          maxItems: 10
          x-kubernetes-list-type: map
          x-kubernetes-list-map-keys: [id]
          items:
            type: object
            required: [id]
            x-kubernetes-validations:
            - rule: "self == oldSelf"
              message: a member does not change
            properties:
              id: {type: integer}
              role: {type: string, maxLength: 10}
      atomic:
        type: object
        x-kubernetes-map-type: atomic
        properties:
          a: {type: integer, x-kubernetes-validations: [{rule: "self >= oldSelf", message: a only grows}]}
      granular:
        type: object
        x-kubernetes-map-type: granular
        properties:
          a: {type: integer, x-kubernetes-validations: [{rule: "self >= oldSelf", message: a only grows}]}
`

// TestTransitionCorrelation checks a transition rule in the items of a
// list-type map sees the old item of the same keys (all set, as
// scalars), that new items and items missing a key skip it, and that
// map values and the properties of atomic and granular maps correlate
// by name.
func TestTransitionCorrelation(t *testing.T) {
	v := compile(t, correlationDoc)
	tcp := func(name string, n int64) map[string]any {
		return map[string]any{"name": name, "protocol": "TCP", "port": n}
	}
	udp := func(name string, n int64) map[string]any {
		return map[string]any{"name": name, "protocol": "UDP", "port": n}
	}
	member := func(id any, role string) map[string]any { return map[string]any{"id": id, "role": role} }
	tests := []struct {
		name     string
		obj, old map[string]any
		want     string
	}{
		{name: "two keys, reordered", obj: spec(map[string]any{"ports": []any{udp("a", 1), tcp("a", 2)}}),
			old: spec(map[string]any{"ports": []any{tcp("a", 2), udp("a", 1)}})},
		{name: "two keys, shrunk", obj: spec(map[string]any{"ports": []any{udp("a", 1), tcp("a", 1)}}),
			old:  spec(map[string]any{"ports": []any{tcp("a", 2), udp("a", 1)}}),
			want: "spec.ports[1]: Invalid value: a port only grows"},
		{name: "other protocol is a new item", obj: spec(map[string]any{"ports": []any{udp("a", 1)}}),
			old: spec(map[string]any{"ports": []any{tcp("a", 2)}})},
		{name: "missing key does not correlate", obj: spec(map[string]any{"ports": []any{map[string]any{"name": "a", "port": int64(1)}}}),
			old: spec(map[string]any{"ports": []any{map[string]any{"name": "a", "port": int64(2)}}})},
		{name: "map value's list item changed", obj: spec(map[string]any{"groups": map[string]any{"x": []any{member(int64(1), "b")}}}),
			old:  spec(map[string]any{"groups": map[string]any{"x": []any{member(int64(1), "a")}}}),
			want: "spec.groups[x][0]: Invalid value: a member does not change"},
		{name: "map value's list item new", obj: spec(map[string]any{"groups": map[string]any{"x": []any{member(int64(2), "b")}}}),
			old: spec(map[string]any{"groups": map[string]any{"x": []any{member(int64(1), "a")}}})},
		{name: "null key does not correlate", obj: spec(map[string]any{"groups": map[string]any{"x": []any{member(nil, "b")}}}),
			old: spec(map[string]any{"groups": map[string]any{"x": []any{member(nil, "a")}}})},
		{name: "atomic map", obj: spec(map[string]any{"atomic": map[string]any{"a": int64(1)}}),
			old:  spec(map[string]any{"atomic": map[string]any{"a": int64(2)}}),
			want: "spec.atomic.a: Invalid value: 1: a only grows"},
		{name: "granular map", obj: spec(map[string]any{"granular": map[string]any{"a": int64(1)}}),
			old:  spec(map[string]any{"granular": map[string]any{"a": int64(2)}}),
			want: "spec.granular.a: Invalid value: 1: a only grows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs, warns := check(v, tc.obj, tc.old)
			if got := joined(errs); got != tc.want || len(warns) > 0 {
				t.Errorf("errors:\n%s\nwant:\n%s\nwarnings: %v", got, tc.want, warns)
			}
		})
	}
}
