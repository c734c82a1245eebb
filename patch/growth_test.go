package patch_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/internal/growth"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/status"
)

// widgetWith returns a Widget with n annotations, n tags and n ports, in
// an order that is not their sorted one; gen tells two versions apart.
func widgetWith(n int, gen string) []byte {
	var ann, tags, ports []string
	for i := 0; i < n; i++ {
		k := (i * 7919) % n // a permutation of 0..n-1 when n is not a multiple of 7919
		ann = append(ann, fmt.Sprintf(`"a%d":"%s"`, k, gen))
		tags = append(tags, fmt.Sprintf(`"t%d-%s"`, k, gen))
		ports = append(ports, fmt.Sprintf(`{"name":"p%d","port":%d}`, k, len(gen)))
	}
	return []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default","annotations":{` +
		strings.Join(ann, ",") + `}},"spec":{"tags":[` + strings.Join(tags, ",") + `],"ports":[` + strings.Join(ports, ",") + `]}}`)
}

// TestManagedFieldsGrowth checks that recording who owns which field of
// an update costs about n·log n in the number of fields it changes, not n²
// (a merge patch of 150,000 annotations once took 35 s): the changed
// fields are collected in key order, so that each lands at the end of its
// sorted set.
func TestManagedFieldsGrowth(t *testing.T) {
	p := widgetPatcher(t, newClock())
	annotated := func(n int, gen string) []byte {
		ann := make([]string, n)
		for i := range ann {
			ann[i] = fmt.Sprintf(`"a%d":"%s"`, i, gen)
		}
		return []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default","annotations":{` +
			strings.Join(ann, ",") + `}},"spec":{}}`)
	}
	update := func(n int) func() {
		live := annotated(n, "x")
		managed, err := p.Update(nil, live, patch.UpdateOptions{Manager: "creator"})
		if err != nil {
			t.Fatal(err)
		}
		next := annotated(n, "y")
		return func() {
			if _, err := p.Update(live, next, patch.UpdateOptions{Manager: "editor", LiveManaged: managed, NewManaged: managed}); err != nil {
				t.Fatal(err)
			}
		}
	}
	growth.Check(t, "update of annotations", 8, 3, update(10000), update(80000))
}

// TestMergePatchGrowth checks that a merge patch of many keys costs about
// n·log n in its size.
func TestMergePatchGrowth(t *testing.T) {
	p := widgetPatcher(t, newClock())
	doc := []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{}}`)
	run := func(n int) func() {
		body := widgetWith(n, "m")
		return func() {
			if _, err := p.Patch(patch.MergePatchType, doc, body); err != nil {
				t.Fatal(err)
			}
		}
	}
	growth.Check(t, "merge patch", 8, 3, run(2000), run(16000))
}

// TestJSONPatchInsertAllocations checks that a JSON patch inserting into
// or removing from the front or middle of a list allocates a bounded
// number of bytes per byte of the patch, whatever its length: each insert
// once copied the whole list (10,000 inserts at index 0 took 20 s).
func TestJSONPatchInsertAllocations(t *testing.T) {
	p := widgetPatcher(t, newClock())
	doc := []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"tags":["a"]}}`)
	ops := func(n int, op func(i int) string) []byte {
		out := make([]string, n)
		for i := range out {
			out[i] = op(i)
		}
		return []byte("[" + strings.Join(out, ",") + "]")
	}
	tests := []struct {
		name string
		body func(n int) []byte
	}{
		{"inserts at the front", func(n int) []byte {
			return ops(n, func(i int) string { return fmt.Sprintf(`{"op":"add","path":"/spec/tags/0","value":"t%d"}`, i) })
		}},
		{"inserts in the middle", func(n int) []byte {
			return ops(n, func(i int) string {
				return fmt.Sprintf(`{"op":"add","path":"/spec/tags/%d","value":"t%d"}`, (i+1)/2, i)
			})
		}},
		{"moves from the front to the end", func(n int) []byte {
			return ops(n, func(i int) string {
				if i < n/2 {
					return fmt.Sprintf(`{"op":"add","path":"/spec/tags/-","value":"t%d"}`, i)
				}
				return `{"op":"move","from":"/spec/tags/0","path":"/spec/tags/-"}`
			})
		}},
		{"copies of one element", func(n int) []byte {
			return ops(n, func(i int) string { return `{"op":"copy","from":"/spec/tags/0","path":"/spec/tags/1"}` })
		}},
		{"removes from the front", func(n int) []byte {
			return ops(n, func(i int) string {
				if i < n/2 {
					return fmt.Sprintf(`{"op":"add","path":"/spec/tags/-","value":"t%d"}`, i)
				}
				return `{"op":"remove","path":"/spec/tags/0"}`
			})
		}},
	}
	const limit = 100 // bytes allocated per byte of patch
	for _, tc := range tests {
		for _, n := range []int{1000, 10000} {
			body := tc.body(n)
			got := growth.Allocated(func() {
				if _, err := p.Patch(patch.JSONPatchType, doc, body); err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
			})
			perByte := float64(got) / float64(len(body))
			t.Logf("%s, %d operations: %d bytes allocated, %.1f per byte of patch", tc.name, n, got, perByte)
			if perByte > limit {
				t.Errorf("%s, %d operations: %.1f bytes allocated per byte of patch, want at most %d", tc.name, n, perByte, limit)
			}
		}
	}
}

// TestApplyYAMLNestingGrowth checks that an apply body in YAML costs about
// its size whatever its flow nesting: the YAML parser's cost grows with
// size times depth, so a body nested deeper than codec.MaxYAMLFlowDepth is
// refused with 400 before it is parsed.
func TestApplyYAMLNestingGrowth(t *testing.T) {
	p := widgetPatcher(t, newClock())
	run := func(depth int) func() {
		body := []byte("apiVersion: stable.example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  x: " +
			strings.Repeat("[", depth) + strings.Repeat("]", depth) + "\n")
		return func() {
			_, _, err := p.Apply(nil, body, patch.ApplyOptions{Manager: "m"})
			if st := status.FromError(err); err == nil || st.Code/100 != 4 {
				t.Fatalf("depth %d: got %v, want a client error", depth, err)
			}
		}
	}
	growth.Check(t, "apply of nested YAML", 8, 3, run(1000), run(8000))
}
