package btree

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"sort"
	"testing"
)

type item struct {
	key string
	gen uint64
}

var ops = NewOps(func(it *item) string { return it.key })

// check verifies the B-tree invariants below n, whose keys must be in
// (lo, hi) ("" meaning no bound), and returns its height. When maxGen is
// nonzero no node may carry a greater generation.
func (n *Node[T]) check(t *testing.T, key func(T) string, lo, hi string, root bool, maxGen uint64) int {
	t.Helper()
	// A node on the right edge (no upper bound) may hold fewer than
	// minItems items after an ascending insert split it at lastSplit.
	if !root && len(n.items) < minItems && (hi != "" || len(n.items) == 0) || len(n.items) > maxItems {
		t.Fatalf("node with %d items", len(n.items))
	}
	if maxGen != 0 && n.gen > maxGen {
		t.Fatalf("node of generation %d in a tree of generation %d", n.gen, maxGen)
	}
	size := len(n.items)
	for i, it := range n.items {
		k := key(it)
		if lo != "" && k <= lo || hi != "" && k >= hi || i > 0 && key(n.items[i-1]) >= k {
			t.Fatalf("key %q out of order in (%q, %q)", k, lo, hi)
		}
	}
	if n.children == nil {
		if n.size != size {
			t.Fatalf("leaf size %d, has %d", n.size, size)
		}
		return 1
	}
	if len(n.children) != len(n.items)+1 {
		t.Fatalf("%d children for %d items", len(n.children), len(n.items))
	}
	height := -1
	for i, c := range n.children {
		clo, chi := lo, hi
		if i > 0 {
			clo = key(n.items[i-1])
		}
		if i < len(n.items) {
			chi = key(n.items[i])
		}
		h := c.check(t, key, clo, chi, false, maxGen)
		if height >= 0 && h != height {
			t.Fatalf("unbalanced: heights %d and %d", height, h)
		}
		height = h
		size += c.size
	}
	if n.size != size {
		t.Fatalf("node size %d, has %d", n.size, size)
	}
	return height + 1
}

// checkTree verifies root, a tree of generation gen or older, against
// model and every read operation against a sorted copy of the model. It
// returns the tree's height.
func checkTree(t *testing.T, root *Node[*item], model map[string]*item, gen uint64, rnd *rand.Rand) int {
	t.Helper()
	height := 0
	if root != nil {
		height = root.check(t, ops.key, "", "", true, gen)
	}
	keys := slices.Sorted(maps.Keys(model))
	if root.Len() != len(keys) {
		t.Fatalf("Len %d, want %d", root.Len(), len(keys))
	}
	var all []string
	ops.Ascend(root, "", false, func(it *item) bool {
		if model[it.key] != it {
			t.Fatalf("tree holds %q=%v, model %v", it.key, it, model[it.key])
		}
		all = append(all, it.key)
		return true
	})
	if !slices.Equal(all, keys) {
		t.Fatalf("tree has %d keys, model %d", len(all), len(keys))
	}
	if got := ops.AppendFrom(nil, root, "", false, len(keys)+1); len(got) != len(keys) {
		t.Fatalf("AppendFrom of all: %d items, want %d", len(got), len(keys))
	}

	// A key of the model's key space: present, absent, or between.
	randKey := func() string {
		if len(keys) > 0 && rnd.Intn(2) == 0 {
			return keys[rnd.Intn(len(keys))]
		}
		return fmt.Sprintf("k%05d", rnd.Intn(7000))
	}
	for range 30 {
		k := randKey()
		if got, ok := ops.Get(root, k); got != model[k] || ok != (model[k] != nil) {
			t.Fatalf("Get(%q) = %v, %v; want %v", k, got, ok, model[k])
		}

		lo, hi := randKey(), ""
		if rnd.Intn(3) > 0 {
			hi = randKey()
		}
		exclusive := rnd.Intn(2) == 0
		first := sort.SearchStrings(keys, lo)
		if exclusive && first < len(keys) && keys[first] == lo {
			first++
		}
		end := len(keys)
		if hi != "" {
			end = sort.SearchStrings(keys, hi)
		}
		if got, want := ops.CountRange(root, lo, exclusive, hi), max(0, end-first); got != want {
			t.Fatalf("CountRange(%q, %v, %q) = %d, want %d", lo, exclusive, hi, got, want)
		}
		if got := ops.CountLess(root, lo, exclusive); got != first {
			t.Fatalf("CountLess(%q, %v) = %d, want %d", lo, exclusive, got, first)
		}

		limit := rnd.Intn(3 * maxItems * maxItems)
		want := keys[first:min(len(keys), first+limit)]
		var asc []string
		done := ops.Ascend(root, lo, exclusive, func(it *item) bool {
			asc = append(asc, it.key)
			return len(asc) < limit
		})
		if limit == 0 {
			want = keys[first:min(len(keys), first+1)] // fn is called once before it says stop
		}
		if !slices.Equal(asc, want) {
			t.Fatalf("Ascend(%q, %v) with limit %d: %d keys, want %d", lo, exclusive, limit, len(asc), len(want))
		}
		if done != (len(asc) < max(limit, 1)) {
			t.Fatalf("Ascend(%q, %v) with limit %d returned %v after %d keys", lo, exclusive, limit, done, len(asc))
		}

		prefix := []*item{{key: "prefix"}}
		page := ops.AppendFrom(slices.Clip(prefix), root, lo, exclusive, limit)
		if page[0] != prefix[0] {
			t.Fatal("AppendFrom changed dst")
		}
		want = keys[first:min(len(keys), first+limit)]
		if len(page)-1 != len(want) {
			t.Fatalf("AppendFrom(%q, %v, %d): %d items, want %d", lo, exclusive, limit, len(page)-1, len(want))
		}
		for i, it := range page[1:] {
			if it != model[want[i]] {
				t.Fatalf("AppendFrom(%q, %v, %d): item %d is %q, want %q", lo, exclusive, limit, i, it.key, want[i])
			}
		}
	}
	return height
}

// TestRandom applies random puts and deletes, sometimes several with one
// generation, and checks every tree against a map, and every tree it
// published against its map again after all later changes.
func TestRandom(t *testing.T) {
	for _, tc := range []struct {
		name      string
		keys, ops int
		batch     int // changes per generation: 1 to batch
		checks    int // check and publish a tree every checks changes
		minHeight int
		ascending bool // put keys in ascending order (wrapping around), not at random
	}{
		{"tiny", 10, 500, 1, 7, 1, false},
		{"small", 100, 3000, 1, 13, 2, false},
		{"small/batched", 100, 3000, 4, 13, 2, false},
		{"deep", 6000, 40000, 1, 997, 3, false},
		{"deep/batched", 6000, 40000, 8, 997, 3, false},
		{"deep/ascending", 6000, 40000, 1, 997, 3, true},
		{"deep/ascending/batched", 6000, 40000, 8, 997, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewSource(int64(len(tc.name))))
			var root *Node[*item]
			model := map[string]*item{}
			type version struct {
				root  *Node[*item]
				model map[string]*item
				gen   uint64
			}
			var published []version
			gen, left := uint64(0), 0 // left: changes still to make with gen
			height, next := 0, 0
			for op := 1; op <= tc.ops; op++ {
				if left == 0 {
					gen++
					left = 1 + rnd.Intn(tc.batch)
				}
				left--
				key := fmt.Sprintf("k%05d", rnd.Intn(tc.keys))
				// Grow, then churn, then shrink.
				del := rnd.Intn(3) == 0
				switch {
				case op > tc.ops*3/4:
					del = rnd.Intn(4) > 0
				case op < tc.ops/4:
					del = false
				}
				if tc.ascending && !del {
					key = fmt.Sprintf("k%05d", next)
					next = (next + 1) % tc.keys
				}
				if del {
					var old *item
					var removed bool
					root, old, removed = ops.Delete(root, key, gen)
					if old != model[key] || removed != (model[key] != nil) {
						t.Fatalf("Delete(%q) = %v, %v; want %v", key, old, removed, model[key])
					}
					delete(model, key)
				} else {
					it := &item{key: key, gen: gen}
					var old *item
					var replaced bool
					root, old, replaced = ops.Put(root, it, gen)
					if old != model[key] || replaced != (model[key] != nil) {
						t.Fatalf("Put(%q) = %v, %v; want %v", key, old, replaced, model[key])
					}
					model[key] = it
				}
				if left == 0 && op%tc.checks == 0 { // gen is done: publish
					height = max(height, checkTree(t, root, model, gen, rnd))
					published = append(published, version{root, maps.Clone(model), gen})
				}
			}
			checkTree(t, root, model, gen, rnd)
			if height < tc.minHeight {
				t.Fatalf("height at most %d: the test does not exercise trees of height %d", height, tc.minHeight)
			}
			for _, v := range published {
				checkTree(t, v.root, v.model, v.gen, rnd)
			}
		})
	}
}

// TestBuild builds trees with one generation, the way a list is loaded,
// and changes them after.
func TestBuild(t *testing.T) {
	for _, sorted := range []bool{true, false} {
		t.Run(fmt.Sprint("sorted=", sorted), func(t *testing.T) {
			rnd := rand.New(rand.NewSource(3))
			const n = 5000
			order := rnd.Perm(n)
			if sorted {
				slices.Sort(order)
			}
			root := new(Node[*item])
			model := map[string]*item{}
			for _, i := range order {
				it := &item{key: fmt.Sprintf("k%05d", i), gen: 1}
				root, _, _ = ops.Put(root, it, 1)
				model[it.key] = it
			}
			built, builtModel := root, maps.Clone(model)
			if checkTree(t, built, model, 1, rnd) < 3 {
				t.Fatal("the built tree is too shallow")
			}
			for gen := uint64(2); gen < 2000; gen++ {
				key := fmt.Sprintf("k%05d", rnd.Intn(n+n/10))
				if gen%2 == 0 {
					root, _, _ = ops.Delete(root, key, gen)
					delete(model, key)
				} else {
					it := &item{key: key, gen: gen}
					root, _, _ = ops.Put(root, it, gen)
					model[key] = it
				}
			}
			checkTree(t, root, model, 0, rnd)
			checkTree(t, built, builtModel, 1, rnd)
		})
	}
}

// TestDeleteAll empties a tree and checks it stays a valid, non-nil tree.
func TestDeleteAll(t *testing.T) {
	rnd := rand.New(rand.NewSource(2))
	root := new(Node[*item])
	const n = 2000
	for i := range n {
		root, _, _ = ops.Put(root, &item{key: fmt.Sprintf("k%05d", i)}, 1)
	}
	full := root
	for i, p := range rnd.Perm(n) {
		root, _, _ = ops.Delete(root, fmt.Sprintf("k%05d", p), uint64(i+2))
		if root == nil {
			t.Fatal("nil root")
		}
		if root.Len() != n-i-1 {
			t.Fatalf("Len %d after %d deletes", root.Len(), i+1)
		}
		if i%101 == 0 {
			root.check(t, ops.key, "", "", true, 0)
		}
	}
	root.check(t, ops.key, "", "", true, 0)
	if root.Len() != 0 || len(root.items) != 0 || root.children != nil {
		t.Fatalf("emptied tree: %+v", root)
	}
	if full.Len() != n || ops.CountRange(full, "", false, "") != n {
		t.Fatal("the full tree changed")
	}
}

func TestEmpty(t *testing.T) {
	for _, root := range []*Node[*item]{nil, new(Node[*item])} {
		if root.Len() != 0 {
			t.Error("Len", root.Len())
		}
		if it, ok := ops.Get(root, ""); it != nil || ok {
			t.Error("Get", it, ok)
		}
		if !ops.Ascend(root, "", false, func(*item) bool { t.Error("Ascend called fn"); return true }) {
			t.Error("Ascend stopped")
		}
		if got := ops.AppendFrom(nil, root, "", false, 10); got != nil {
			t.Error("AppendFrom", got)
		}
		if n := ops.CountRange(root, "", false, ""); n != 0 {
			t.Error("CountRange", n)
		}
		if r, it, ok := ops.Delete(root, "a", 1); r != root || it != nil || ok {
			t.Error("Delete", r, it, ok)
		}
		r, _, _ := ops.Put(root, &item{key: "a"}, 1)
		if r == root || r.Len() != 1 || root.Len() != 0 {
			t.Error("Put changed the empty tree or made none")
		}
		r, it, ok := ops.Delete(r, "a", 2)
		if r == nil || r.Len() != 0 || it.key != "a" || !ok {
			t.Error("Delete", r, it, ok)
		}
	}
}

// TestEmptyKey stores the empty key, which sorts first.
func TestEmptyKey(t *testing.T) {
	var root *Node[*item]
	for i, k := range []string{"b", "", "a"} {
		root, _, _ = ops.Put(root, &item{key: k}, uint64(i+1))
	}
	if it, ok := ops.Get(root, ""); !ok || it.key != "" {
		t.Fatal("Get of the empty key")
	}
	for _, tc := range []struct {
		exclusive bool
		want      int
	}{{false, 3}, {true, 2}} {
		if got := ops.CountRange(root, "", tc.exclusive, ""); got != tc.want {
			t.Errorf("CountRange(\"\", %v) = %d", tc.exclusive, got)
		}
		if got := ops.AppendFrom(nil, root, "", tc.exclusive, 5); len(got) != tc.want {
			t.Errorf("AppendFrom(\"\", %v) = %d items", tc.exclusive, len(got))
		}
	}
}

func TestCounts(t *testing.T) {
	var root *Node[*item]
	for i := 0; i < 500; i += 2 {
		root, _, _ = ops.Put(root, &item{key: fmt.Sprintf("/k/%03d", i)}, 1)
	}
	for _, tc := range []struct {
		lo        string
		exclusive bool
		hi        string
		want      int
	}{
		{"", false, "", 250},
		{"/k/000", false, "", 250},
		{"/k/000", true, "", 249},
		{"/k/001", false, "", 249},
		{"/k/001", true, "", 249},
		{"/k/100", false, "/k/200", 50},
		{"/k/100", true, "/k/200", 49},
		{"/k/100", true, "/k/201", 50},
		{"/k/498", false, "", 1},
		{"/k/498", true, "", 0},
		{"/k/999", false, "", 0},
		{"/k/300", false, "/k/100", 0},
		{"/k/", false, "/k0", 250},
		{"/a", false, "/b", 0},
	} {
		if got := ops.CountRange(root, tc.lo, tc.exclusive, tc.hi); got != tc.want {
			t.Errorf("CountRange(%q, %v, %q) = %d, want %d", tc.lo, tc.exclusive, tc.hi, got, tc.want)
		}
	}
	for _, tc := range []struct {
		from      string
		exclusive bool
		want      []string
	}{
		{"/k/101", false, []string{"/k/102", "/k/104", "/k/106"}},
		{"/k/102", false, []string{"/k/102", "/k/104", "/k/106"}},
		{"/k/102", true, []string{"/k/104", "/k/106", "/k/108"}},
		{"/k/496", true, []string{"/k/498"}},
		{"/k/498", true, nil},
	} {
		var got []string
		ops.Ascend(root, tc.from, tc.exclusive, func(it *item) bool {
			got = append(got, it.key)
			return len(got) < 3
		})
		if !slices.Equal(got, tc.want) {
			t.Errorf("Ascend(%q, %v): %v, want %v", tc.from, tc.exclusive, got, tc.want)
		}
		got = got[:0]
		for _, it := range ops.AppendFrom(nil, root, tc.from, tc.exclusive, 3) {
			got = append(got, it.key)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("AppendFrom(%q, %v): %v, want %v", tc.from, tc.exclusive, got, tc.want)
		}
	}
}

// TestAscendingFill: keys put in ascending order, one change each (as a
// store is loaded with numbered names), leave every node off the right
// edge nearly full, not half full.
func TestAscendingFill(t *testing.T) {
	for _, n := range []int{100, 10000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var root *Node[*item]
			for i := range n {
				root, _, _ = ops.Put(root, &item{key: fmt.Sprintf("k%05d", i)}, uint64(i+1))
			}
			root.check(t, ops.key, "", "", true, 0)
			var walk func(n *Node[*item], edge bool)
			walk = func(n *Node[*item], edge bool) {
				if !edge && len(n.items) < lastSplit {
					t.Errorf("a node off the right edge holds %d items, want at least %d", len(n.items), lastSplit)
				}
				for i, c := range n.children {
					walk(c, edge && i == len(n.items))
				}
			}
			walk(root, true)
		})
	}
}

// TestAllocs checks that reads allocate nothing and a change allocates
// only the nodes it copies.
func TestAllocs(t *testing.T) {
	var root *Node[*item]
	for i := range 10000 {
		root, _, _ = ops.Put(root, &item{key: fmt.Sprintf("k%05d", i)}, 1)
	}
	dst := make([]*item, 0, 1000)
	var found int
	count := func(*item) bool { found++; return found < 100 }
	for name, f := range map[string]func(){
		"Get":        func() { ops.Get(root, "k05000") },
		"CountRange": func() { ops.CountRange(root, "k01000", true, "k09000") },
		"AppendFrom": func() { dst = ops.AppendFrom(dst[:0], root, "k04000", false, 1000) },
		"Ascend":     func() { found = 0; ops.Ascend(root, "k04000", true, count) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %v allocations", name, n)
		}
	}
	// A change copies the root-to-leaf path: a node and its items (and
	// children) per level.
	h := root.check(t, ops.key, "", "", true, 0)
	gen := uint64(1)
	it := &item{key: "k05000"}
	if n := testing.AllocsPerRun(100, func() { gen++; ops.Put(root, it, gen) }); n > float64(3*h) {
		t.Errorf("Put: %v allocations for height %d", n, h)
	}
}

func benchTree(n int) (*Node[*item], []string) {
	var root *Node[*item]
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("/widgets/default/w%06d", i)
		root, _, _ = ops.Put(root, &item{key: keys[i]}, 1)
	}
	rand.New(rand.NewSource(1)).Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return root, keys
}

func BenchmarkGet(b *testing.B) {
	root, keys := benchTree(10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok := ops.Get(root, keys[i%len(keys)]); !ok {
			b.Fatal("missing")
		}
	}
}

func BenchmarkPut(b *testing.B) {
	root, keys := benchTree(10000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		root, _, _ = ops.Put(root, &item{key: keys[i%len(keys)]}, uint64(i+2))
	}
}

func BenchmarkPutDelete(b *testing.B) {
	root, keys := benchTree(10000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := keys[i%len(keys)]
		root, _, _ = ops.Delete(root, k, uint64(2*i+2))
		root, _, _ = ops.Put(root, &item{key: k}, uint64(2*i+3))
	}
}

func BenchmarkCountRange(b *testing.B) {
	root, keys := benchTree(10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ops.CountRange(root, keys[i%len(keys)], false, "/widgets/default/w005000")
	}
}

func BenchmarkAppendFrom1000(b *testing.B) {
	root, keys := benchTree(10000)
	dst := make([]*item, 0, 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dst = ops.AppendFrom(dst[:0], root, keys[i%len(keys)], false, 1000)
	}
}

func BenchmarkAscend1000(b *testing.B) {
	root, keys := benchTree(10000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		ops.Ascend(root, keys[i%len(keys)], false, func(*item) bool { n++; return n < 1000 })
	}
}
