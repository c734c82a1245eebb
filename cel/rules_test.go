package cel

import (
	"testing"
)

// ruleDoc is a schema with one node of every shape rules apply to.
const ruleDoc = `
type: object
x-kubernetes-validations:
- rule: "self.metadata.name != 'forbidden'"
  message: name may not be forbidden
- rule: "self.apiVersion == 'x.example.com/v1' && self.kind == 'Thing'"
properties:
  spec:
    type: object
    x-kubernetes-validations:
    - rule: "!has(self.color) || self.replicas >= 1"
      message: replicas must be at least 1 while color is set
    - rule: "self.replicas <= 10"
      messageExpression: "self.color + ' widgets have at most 10 replicas'"
      fieldPath: .replicas
    - rule: "!has(self.owner) || self.owner != 'root'"
      message: root may not own things
      reason: FieldValueForbidden
      fieldPath: .owner
    - rule: "!has(self.__namespace__) || self.__namespace__ == self.my__dash__field"
      message: namespace must equal my-field
    properties:
      replicas: {type: integer}
      color: {type: string, maxLength: 20}
      owner: {type: string, maxLength: 20}
      ratio:
        type: number
        x-kubernetes-validations:
        - rule: "self < 1.5"
      enabled:
        type: boolean
        x-kubernetes-validations:
        - rule: "self"
          message: must be enabled
      labels:
        type: object
        maxProperties: 10
        additionalProperties: {type: string, maxLength: 63, x-kubernetes-validations: [{rule: "self != ''", message: empty label}]}
        x-kubernetes-validations:
        - rule: "self.all(k, k.startsWith('x-'))"
          message: label keys start with x-
      tags:
        type: array
        maxItems: 10
        x-kubernetes-list-type: set
        items: {type: string, maxLength: 20}
        x-kubernetes-validations:
        - rule: "self.all(t, t.size() > 1)"
          message: tags are longer than one character
      ports:
        type: array
        maxItems: 10
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          required: [name]
          properties:
            name: {type: string, maxLength: 15}
            port:
              type: integer
              x-kubernetes-validations:
              - rule: "self == oldSelf"
                message: a port's number is immutable
          x-kubernetes-validations:
          - rule: "self.port > 0"
            messageExpression: "'port ' + self.name + ' must be positive'"
      when: {type: string, format: date-time, x-kubernetes-validations: [{rule: "self > timestamp('2020-01-01T00:00:00Z')"}]}
      ttl: {type: string, format: duration, x-kubernetes-validations: [{rule: "self <= duration('1h')"}]}
      blob: {type: string, format: byte, x-kubernetes-validations: [{rule: "size(self) < 4"}]}
      amount: {x-kubernetes-int-or-string: true, x-kubernetes-validations: [{rule: "self != 0 && self != '0%'"}]}
      free: {type: object, x-kubernetes-preserve-unknown-fields: true, x-kubernetes-validations: [{rule: "!has(self.bad)"}]}
      my-field: {type: string, maxLength: 10}
      namespace: {type: string, maxLength: 10}
      oddities:
        type: object
        properties:
          a__b: {type: string, maxLength: 10}
          x.y: {type: string, maxLength: 10}
        x-kubernetes-validations:
        - rule: "!has(self.a__underscores__b) || !has(self.x__dot__y)"
          message: a__b and x.y exclude each other
`

func thing(spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": "x.example.com/v1", "kind": "Thing",
		"metadata": map[string]any{"name": "t", "namespace": "default"}, "spec": spec}
}

// TestRuleShapes evaluates rules on every kind of node: the root,
// objects, scalars, maps, lists, items, formats, int-or-string, unknown
// fields and escaped property names.
func TestRuleShapes(t *testing.T) {
	v := compile(t, ruleDoc)
	tests := []struct {
		name string
		spec map[string]any
		meta map[string]any
		want string
	}{
		{name: "valid", spec: map[string]any{"replicas": int64(1), "color": "red"}},
		{name: "object rule", spec: map[string]any{"replicas": int64(0), "color": "red"},
			want: "spec: Invalid value: replicas must be at least 1 while color is set"},
		{name: "messageExpression and fieldPath", spec: map[string]any{"replicas": int64(11), "color": "red"},
			want: "spec.replicas: Invalid value: red widgets have at most 10 replicas"},
		{name: "messageExpression failing", spec: map[string]any{"replicas": int64(11)},
			want: "spec.replicas: Invalid value: failed rule: self.replicas <= 10"},
		{name: "reason", spec: map[string]any{"replicas": int64(1), "owner": "root"},
			want: "spec.owner: Forbidden: root may not own things"},
		{name: "number", spec: map[string]any{"replicas": int64(1), "ratio": int64(2)},
			want: "spec.ratio: Invalid value: 2: failed rule: self < 1.5"},
		{name: "boolean", spec: map[string]any{"replicas": int64(1), "enabled": false},
			want: "spec.enabled: Invalid value: false: must be enabled"},
		{name: "map", spec: map[string]any{"replicas": int64(1), "labels": map[string]any{"x-a": "1", "b": ""}},
			want: "spec.labels: Invalid value: label keys start with x-\nspec.labels[b]: Invalid value: \"\": empty label"},
		{name: "set", spec: map[string]any{"replicas": int64(1), "tags": []any{"ab", "c"}},
			want: "spec.tags: Invalid value: tags are longer than one character"},
		{name: "list-map item", spec: map[string]any{"replicas": int64(1), "ports": []any{map[string]any{"name": "http", "port": int64(0)}}},
			want: "spec.ports[0]: Invalid value: port http must be positive"},
		{name: "date-time", spec: map[string]any{"replicas": int64(1), "when": "2019-06-01T00:00:00Z"},
			want: `spec.when: Invalid value: "2019-06-01T00:00:00Z": failed rule: self > timestamp('2020-01-01T00:00:00Z')`},
		{name: "duration", spec: map[string]any{"replicas": int64(1), "ttl": "2h"},
			want: `spec.ttl: Invalid value: "2h": failed rule: self <= duration('1h')`},
		{name: "bytes", spec: map[string]any{"replicas": int64(1), "blob": "aGVsbG8="},
			want: `spec.blob: Invalid value: "aGVsbG8=": failed rule: size(self) < 4`},
		{name: "int-or-string int", spec: map[string]any{"replicas": int64(1), "amount": int64(0)},
			want: `spec.amount: Invalid value: 0: failed rule: self != 0 && self != '0%'`},
		{name: "int-or-string string", spec: map[string]any{"replicas": int64(1), "amount": "50%"}},
		{name: "unknown fields", spec: map[string]any{"replicas": int64(1), "free": map[string]any{"bad": true}},
			want: "spec.free: Invalid value: failed rule: !has(self.bad)"},
		{name: "escaped names", spec: map[string]any{"replicas": int64(1), "namespace": "a", "my-field": "b"},
			want: "spec: Invalid value: namespace must equal my-field"},
		{name: "escaped underscores and dots", spec: map[string]any{"replicas": int64(1), "oddities": map[string]any{"a__b": "1", "x.y": "2"}},
			want: "spec.oddities: Invalid value: a__b and x.y exclude each other"},
		{name: "root metadata", spec: map[string]any{"replicas": int64(1)}, meta: map[string]any{"name": "forbidden"},
			want: "<nil>: Invalid value: name may not be forbidden"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := thing(tc.spec)
			if tc.meta != nil {
				obj["metadata"] = tc.meta
			}
			errs, warns := check(v, obj, nil)
			if got := joined(errs); got != tc.want || len(warns) > 0 {
				t.Errorf("errors:\n%s\nwant:\n%s\nwarnings: %v", got, tc.want, warns)
			}
		})
	}
}
