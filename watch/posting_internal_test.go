package watch

import (
	"slices"
	"strconv"
	"testing"
)

// TestPostingKeys checks a posting's keys through adds and removes that
// move it between one inline key and a tree of keys, and reads from a
// start key.
func TestPostingKeys(t *testing.T) {
	type op struct {
		add bool
		key string
	}
	for _, tc := range []struct {
		name  string
		ops   []op
		start string
		want  []string
	}{
		{name: "empty", want: nil},
		{name: "one", ops: []op{{true, "/a"}}, want: []string{"/a"}},
		{name: "one twice", ops: []op{{true, "/a"}, {true, "/a"}}, want: []string{"/a"}},
		{name: "one before start", ops: []op{{true, "/a"}}, start: "/b", want: nil},
		{name: "one at start", ops: []op{{true, "/b"}}, start: "/b", want: []string{"/b"}},
		{name: "two", ops: []op{{true, "/b"}, {true, "/a"}}, want: []string{"/a", "/b"}},
		{name: "two from start", ops: []op{{true, "/b"}, {true, "/a"}, {true, "/c"}}, start: "/b", want: []string{"/b", "/c"}},
		{name: "one removed", ops: []op{{true, "/a"}, {false, "/a"}}, want: nil},
		{name: "other removed", ops: []op{{true, "/a"}, {false, "/b"}}, want: []string{"/a"}},
		{name: "two, first removed", ops: []op{{true, "/a"}, {true, "/b"}, {false, "/a"}}, want: []string{"/b"}},
		{name: "two removed, one back", ops: []op{{true, "/a"}, {true, "/b"}, {false, "/a"}, {false, "/b"}, {true, "/c"}}, want: []string{"/c"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &posting{term: "t"}
			for i, o := range tc.ops {
				if o.add {
					p.add(o.key, uint64(i+1))
				} else {
					p.remove(o.key, uint64(i+1))
				}
			}
			var got []string
			p.ascend(tc.start, func(k string) bool { got = append(got, k); return true })
			if !slices.Equal(got, tc.want) {
				t.Errorf("keys from %q = %q, want %q", tc.start, got, tc.want)
			}
			var all []string
			p.ascend("", func(k string) bool { all = append(all, k); return true })
			if p.len() != len(all) {
				t.Errorf("len = %d, want %d", p.len(), len(all))
			}
		})
	}
}

// TestUniqueTermAllocations checks that indexing an object under a term
// no other object has (a label naming the object) allocates the posting
// alone, not a tree of one key besides: with every object of a collection
// under a term of its own, those trees were a node and its items per
// object.
func TestUniqueTermAllocations(t *testing.T) {
	const n = 1000
	terms := make([]string, n)
	keys := make([]string, n)
	for i := range n {
		terms[i] = "instance=w" + strconv.Itoa(i)
		keys[i] = "/w" + strconv.Itoa(i)
	}
	var root *pnode
	i := 0
	allocs := testing.AllocsPerRun(n-1, func() {
		root = index(root, terms[i], keys[i], 1)
		i++
	})
	// The postings tree, changed in place (one generation), allocates
	// only when a node splits or a slice grows.
	if allocs > 1.5 {
		t.Errorf("indexing an object under a term of its own allocates %.2f times, want at most 1.5", allocs)
	}
	if got, ok := candidates(root, [][]string{{terms[7]}}, "", ""); !ok || !slices.Equal(got, []string{keys[7]}) {
		t.Errorf("candidates of %s = %q, %v; want [%s]", terms[7], got, ok, keys[7])
	}
}
