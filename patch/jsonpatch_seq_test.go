package patch

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func (n *seqNode) height() int {
	if n == nil {
		return 0
	}
	return 1 + max(n.left.height(), n.right.height())
}

// TestSeqStaysBalanced checks that a list edited at random places keeps a
// height logarithmic in its length, so that each edit of a JSON patch
// costs about log n, not n as moving a slice's elements did.
func TestSeqStaysBalanced(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	l := make([]any, 100000)
	s := seqFrom(l)
	for i := 0; i < 100000; i++ {
		switch rng.Intn(3) {
		case 0:
			s.insert(0, i)
		case 1:
			s.insert(rng.Intn(s.len()+1), i)
		default:
			s.delete(rng.Intn(s.len()))
		}
	}
	limit := 4*bits.Len(uint(s.len())) + 8
	if h := s.root.height(); h > limit {
		t.Errorf("a seq of %d elements is %d high, over %d", s.len(), h, limit)
	}
}

// TestJSONPatchListEditsMatchSlices applies random JSON patches editing a
// list (adds, removes, moves, copies, replaces, tests, anywhere in it)
// and checks the result against the same edits made on a slice.
func TestJSONPatchListEditsMatchSlices(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for round := 0; round < 300; round++ {
		n := rng.Intn(20)
		want := make([]any, n)
		for i := range want {
			want[i] = fmt.Sprintf("v%d", i)
		}
		doc, _ := json.Marshal(map[string]any{"spec": map[string]any{"l": want}})
		var ops []string
		for k := 0; k < 30; k++ {
			switch op := rng.Intn(6); {
			case op == 0 || len(want) == 0:
				i := rng.Intn(len(want) + 1)
				v := fmt.Sprintf("a%d", k)
				ops = append(ops, fmt.Sprintf(`{"op":"add","path":"/spec/l/%d","value":%q}`, i, v))
				want = append(want[:i], append([]any{v}, want[i:]...)...)
			case op == 1:
				i := rng.Intn(len(want))
				ops = append(ops, fmt.Sprintf(`{"op":"remove","path":"/spec/l/%d"}`, i))
				want = append(want[:i], want[i+1:]...)
			case op == 2:
				i := rng.Intn(len(want))
				v := want[i]
				rest := append(append([]any{}, want[:i]...), want[i+1:]...)
				j := rng.Intn(len(rest) + 1)
				ops = append(ops, fmt.Sprintf(`{"op":"move","from":"/spec/l/%d","path":"/spec/l/%d"}`, i, j))
				want = append(rest[:j], append([]any{v}, rest[j:]...)...)
			case op == 3:
				i, j := rng.Intn(len(want)), rng.Intn(len(want)+1)
				v := want[i]
				ops = append(ops, fmt.Sprintf(`{"op":"copy","from":"/spec/l/%d","path":"/spec/l/%d"}`, i, j))
				want = append(want[:j], append([]any{v}, want[j:]...)...)
			case op == 4:
				i := rng.Intn(len(want))
				v := fmt.Sprintf("r%d", k)
				ops = append(ops, fmt.Sprintf(`{"op":"replace","path":"/spec/l/%d","value":%q}`, i, v))
				want[i] = v
			default:
				i := rng.Intn(len(want))
				ops = append(ops, fmt.Sprintf(`{"op":"test","path":"/spec/l/%d","value":%q}`, i, want[i]))
			}
		}
		ops = append(ops, fmt.Sprintf(`{"op":"test","path":"/spec/l","value":%s}`, mustJSON(want)))
		out, err := JSONPatch(doc, []byte("["+strings.Join(ops, ",")+"]"), 1<<20)
		if err != nil {
			t.Fatalf("round %d: %v\nops %s", round, err, strings.Join(ops, "\n"))
		}
		var got struct {
			Spec struct {
				L []any `json:"l"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if diff := cmp.Diff(append([]any{}, want...), got.Spec.L); diff != "" {
			t.Fatalf("round %d (-want +got):\n%s", round, diff)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
