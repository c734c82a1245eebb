package watch

import (
	"fmt"
	"math/rand/v2"
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

// TestPostingKeyAddedAgain: a key added again to a posting of many keys
// after it went into the tree (which the index does not do) is read
// once, and gone once removed.
func TestPostingKeyAddedAgain(t *testing.T) {
	p := &posting{term: "t"}
	var want []string
	for i := range recentKeys + 8 {
		key := fmt.Sprintf("/w%02d", i)
		p.add(key, 1)
		want = append(want, key)
	}
	p.add("/w05", 1)
	var got []string
	p.ascend("", func(k string) bool { got = append(got, k); return true })
	if !slices.Equal(got, want) {
		t.Errorf("keys %q, want %q", got, want)
	}
	p.remove("/w05", 1)
	want = slices.DeleteFunc(want, func(k string) bool { return k == "/w05" })
	got = got[:0]
	p.ascend("", func(k string) bool { got = append(got, k); return true })
	if !slices.Equal(got, want) || p.len() != len(want) {
		t.Errorf("after removing /w05: keys %q (len %d), want %q", got, p.len(), want)
	}
}

// TestUniqueTermAllocations checks that indexing an object under a term
// no other object has (a label naming the object) allocates the posting
// and its own copy of the term alone, not a tree of one key besides: with
// every object of a collection under a term of its own, those trees were
// a node and its items per object.
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
	if allocs > 2.5 {
		t.Errorf("indexing an object under a term of its own allocates %.2f times, want at most 2.5", allocs)
	}
	if got, ok := candidates(root, [][]string{{terms[7]}}, "", ""); !ok || !slices.Equal(got, []string{keys[7]}) {
		t.Errorf("candidates of %s = %q, %v; want [%s]", terms[7], got, ok, keys[7])
	}
}

// TestIndexMatchesModel changes an index at random, a generation per
// round, against a map of each term's keys: every state reads its own
// terms' keys, whole and in a range, also after later rounds changed the
// index (copy on write), as terms move between one key and many and
// back, and a shared term's recent keys fill and go into its tree.
func TestIndexMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	type snapshot struct {
		root  *pnode
		model map[string][]string
	}
	terms := []string{"all", "half", "few", "own"}
	termsOf := func(obj int, seed uint64) []string {
		var ts []string
		for _, term := range terms {
			switch {
			case term == "own":
				ts = append(ts, fmt.Sprintf("own=%d", obj))
			case term == "few" && (obj+int(seed))%7 == 0, term == "half" && (obj+int(seed))%2 == 0, term == "all":
				ts = append(ts, term)
			}
		}
		slices.Sort(ts)
		return ts
	}
	have := map[int][]string{} // each object's terms
	var root *pnode
	var snaps []snapshot
	for gen := uint64(1); gen <= 300; gen++ {
		for range 1 + rng.IntN(8) {
			obj := rng.IntN(100)
			key := fmt.Sprintf("/w%02d", obj)
			after := termsOf(obj, rng.Uint64N(5))
			if rng.IntN(4) == 0 {
				after = nil
			}
			root = reindex(root, key, have[obj], after, gen)
			have[obj] = after
		}
		model := map[string][]string{}
		for obj, ts := range have {
			for _, term := range ts {
				model[term] = append(model[term], fmt.Sprintf("/w%02d", obj))
			}
		}
		for _, keys := range model {
			slices.Sort(keys)
		}
		snaps = append(snaps, snapshot{root, model})
		for i, s := range snaps {
			if i < len(snaps)-3 && gen%30 != 0 {
				continue // the older states now and then
			}
			if got, want := s.root.Len(), len(s.model); got != want {
				t.Fatalf("round %d, state %d: %d terms, want %d", gen, i, got, want)
			}
			for term, want := range s.model {
				got, _ := candidates(s.root, [][]string{{term}}, "", "")
				if !slices.Equal(got, want) {
					t.Fatalf("round %d, state %d: keys of %s = %q, want %q", gen, i, term, got, want)
				}
				lo, hi := "/w40", "/w60"
				want = slices.DeleteFunc(slices.Clone(want), func(k string) bool { return k < lo || k >= hi })
				if got, _ := candidates(s.root, [][]string{{term}}, lo, hi); !slices.Equal(got, want) {
					t.Fatalf("round %d, state %d: keys of %s in [%s, %s) = %q, want %q", gen, i, term, lo, hi, got, want)
				}
			}
		}
	}
}
