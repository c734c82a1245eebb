package patch_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/patch"
)

// shuffled returns 0..n-1 in an order that is not their sorted one.
func shuffled(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = (i * 7919) % n
	}
	return out
}

func containers(ids []int, f string) string {
	items := make([]string, len(ids))
	for i, id := range ids {
		items[i] = fmt.Sprintf(f, id)
	}
	return strings.Join(items, ",")
}

// TestStrategicMergeListGrowth checks that merging lists costs about
// n·log n element comparisons in their length, not n²: a list 8 times
// longer may cost at most 16 times more (n·log n gives about 10, n² 64).
// Work is counted, not timed.
func TestStrategicMergeListGrowth(t *testing.T) {
	s := smpSchema(t)
	tests := []struct {
		name       string
		doc, patch func(n int) string
	}{
		{"merge by key, half new",
			func(n int) string {
				return `{"spec":{"containers":[` + containers(shuffled(n), `{"name":"c%d","image":"x"}`) + `]}}`
			},
			func(n int) string {
				ids := shuffled(n)
				for i := range ids {
					ids[i] += n / 2
				}
				return `{"spec":{"containers":[` + containers(ids, `{"name":"c%d","image":"y"}`) + `]}}`
			}},
		{"delete by key",
			func(n int) string {
				return `{"spec":{"containers":[` + containers(shuffled(n), `{"name":"c%d"}`) + `]}}`
			},
			func(n int) string {
				return `{"spec":{"containers":[` + containers(shuffled(n/2), `{"name":"c%d","$patch":"delete"}`) + `]}}`
			}},
		{"set element order",
			func(n int) string {
				return `{"spec":{"containers":[` + containers(shuffled(n), `{"name":"c%d"}`) + `]}}`
			},
			func(n int) string {
				order := shuffled(n + n/2)
				var some []int
				for i := 0; i < len(order); i += 3 {
					some = append(some, order[i])
				}
				return `{"spec":{"$setElementOrder/containers":[` + containers(order, `{"name":"c%d"}`) +
					`],"containers":[` + containers(some, `{"name":"c%d","image":"z"}`) + `]}}`
			}},
		{"primitive union",
			func(n int) string { return `{"spec":{"tags":[` + containers(shuffled(n), `"t%d"`) + `]}}` },
			func(n int) string {
				ids := shuffled(n)
				for i := range ids {
					ids[i] += n / 2
				}
				return `{"spec":{"tags":[` + containers(ids, `"t%d"`) + `]}}`
			}},
		{"primitive union with repeats",
			func(n int) string { return `{"spec":{"tags":[` + containers(shuffled(n), `"t%d"`) + `]}}` },
			func(n int) string {
				ids := shuffled(n)
				for i := range ids {
					ids[i] %= 7
				}
				return `{"spec":{"tags":[` + containers(ids, `"t%d"`) + `]}}`
			}},
		{"delete from a primitive list",
			func(n int) string { return `{"spec":{"tags":[` + containers(shuffled(n), `"t%d"`) + `]}}` },
			func(n int) string {
				return `{"spec":{"$deleteFromPrimitiveList/tags":[` + containers(shuffled(n/2), `"t%d"`) + `]}}`
			}},
		{"primitive set element order",
			func(n int) string { return `{"spec":{"tags":[` + containers(shuffled(n), `"t%d"`) + `]}}` },
			func(n int) string {
				return `{"spec":{"$setElementOrder/tags":[` + containers(shuffled(n), `"t%d"`) + `],"tags":["t1"]}}`
			}},
	}
	const small, factor, limit = 500, 8, 16.0
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			work := func(n int) int {
				w, err := patch.StrategicMergeWork([]byte(tc.doc(n)), []byte(tc.patch(n)), s)
				if err != nil {
					t.Fatalf("n=%d: %v", n, err)
				}
				return max(w, 1)
			}
			ws, wl := work(small), work(small*factor)
			ratio := float64(wl) / float64(ws)
			t.Logf("%d elements: %d units of work; %d: %d; ratio %.1f (limit %g)", small, ws, small*factor, wl, ratio, limit)
			if ratio > limit {
				t.Errorf("a list %d times longer costs %.1f times more work, over the %g of an n·log n merge", factor, ratio, limit)
			}
		})
	}
}
