package schema

import (
	"fmt"
	"testing"

	"github.com/kapi-dev/kapi/internal/growth"
	"github.com/kapi-dev/kapi/status"
)

const listsDoc = `
type: object
properties:
  set:
    type: array
    x-kubernetes-list-type: set
    items: {type: string}
  numbers:
    type: array
    x-kubernetes-list-type: set
    items: {type: number}
  atomics:
    type: array
    x-kubernetes-list-type: set
    items:
      type: object
      x-kubernetes-map-type: atomic
      properties:
        a: {type: string}
  map:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [name, port]
    items:
      type: object
      required: [name]
      properties:
        name: {type: string}
        port: {type: integer, default: 80}
  free:
    type: object
    x-kubernetes-preserve-unknown-fields: true
`

// TestListValidationGrowth checks that validating a list-type set or map
// costs about n·log n in its length, not n² (a set of 30,000 strings once
// took 38 s).
func TestListValidationGrowth(t *testing.T) {
	s, err := FromOpenAPI([]byte(listsDoc))
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewValidator(s)
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]func(i int) any{
		"set":     func(i int) any { return fmt.Sprintf("item-%d", i) },
		"numbers": func(i int) any { return float64(i) + 0.5 },
		"atomics": func(i int) any { return map[string]any{"a": fmt.Sprint(i)} },
		"map":     func(i int) any { return map[string]any{"name": fmt.Sprint(i)} },
	}
	const n = 3000
	for field, item := range items {
		list := func(n int) map[string]any {
			l := make([]any, n)
			for i := range l {
				l[i] = item(i)
			}
			return map[string]any{field: l}
		}
		small, large := list(n), list(8*n)
		validate := func(obj map[string]any) func() {
			return func() {
				if errs := v.Validate(status.Path{}, obj); len(errs) != 0 {
					t.Fatalf("%s: %v", field, errs)
				}
			}
		}
		growth.Check(t, field, 8, 3, validate(small), validate(large))
	}
}

// TestUniqueSetDuplicates checks that every duplicate of a set is still
// reported, numbers compared by value whatever their form.
func TestUniqueSetDuplicates(t *testing.T) {
	s, err := FromOpenAPI([]byte(listsDoc))
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewValidator(s)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		doc  string
		want []string
	}{
		{`{"set":["a","b","a","c","b"]}`, []string{`set[2]: Duplicate value: "a"`, `set[4]: Duplicate value: "b"`}},
		{`{"numbers":[1,1.0,-0.0,0,2.5]}`, []string{`numbers[1]: Duplicate value: 1`, `numbers[3]: Duplicate value: 0`}},
		{`{"atomics":[{"a":"x"},{"a":"y"},{"a":"x"}]}`, []string{`atomics[2]: Duplicate value: {"a":"x"}`}},
		{`{"set":["a","A","a "]}`, nil},
	}
	for _, tc := range tests {
		got := messages(v.Validate(status.Path{}, mustJSON(t, tc.doc)))
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.doc, got, tc.want)
		}
	}
}
