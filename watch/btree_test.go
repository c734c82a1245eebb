package watch

import (
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"github.com/kapi-dev/kapi/storage"
)

func testEntry(key string, rev int64) *Entry {
	return newEntry(&storage.KeyValue{Key: key, ModRevision: rev}, nil)
}

// check verifies the B-tree invariants below n and returns its height.
func (n *node) check(t *testing.T, lo, hi string, root bool) int {
	t.Helper()
	if !root && len(n.items) < minItems || len(n.items) > maxItems {
		t.Fatalf("node with %d items", len(n.items))
	}
	size := len(n.items)
	for i, e := range n.items {
		k := itemKey(e)
		if k <= lo && lo != "" || hi != "" && k >= hi || i > 0 && itemKey(n.items[i-1]) >= k {
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
			clo = itemKey(n.items[i-1])
		}
		if i < len(n.items) {
			chi = itemKey(n.items[i])
		}
		h := c.check(t, clo, chi, false)
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

func (n *node) keys() []string {
	var out []string
	n.ascend("", func(e *Entry) bool { out = append(out, itemKey(e)); return true })
	return out
}

func sortedKeys(m map[string]int64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestBTreeRandom applies random puts and deletes and checks every
// version against a map, including old versions after later changes.
func TestBTreeRandom(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys int
		ops  int
	}{
		{"small", 40, 2000},
		{"deep", 3000, 20000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rnd := rand.New(rand.NewSource(1))
			root := &node{}
			want := map[string]int64{}
			type version struct {
				root *node
				want []string
			}
			var versions []version
			for op := 1; op <= tc.ops; op++ {
				key := fmt.Sprintf("/k/%05d", rnd.Intn(tc.keys))
				gen := uint64(op)
				if rnd.Intn(3) == 0 {
					var old *Entry
					root, old = treeDelete(root, key, gen)
					if _, ok := want[key]; ok != (old != nil) {
						t.Fatalf("delete %s: removed %v, present %v", key, old, ok)
					}
					delete(want, key)
				} else {
					var old *Entry
					root, old = treePut(root, testEntry(key, int64(op)), gen)
					if _, ok := want[key]; ok != (old != nil) {
						t.Fatalf("put %s: replaced %v, present %v", key, old, ok)
					}
					want[key] = int64(op)
				}
				if op%97 == 0 {
					root.check(t, "", "", true)
					versions = append(versions, version{root, sortedKeys(want)})
				}
			}
			root.check(t, "", "", true)
			if got := root.keys(); !slices.Equal(got, sortedKeys(want)) {
				t.Fatalf("final keys differ: %d vs %d", len(got), len(want))
			}
			for k, rev := range want {
				if e := root.get(k); e == nil || e.KV.ModRevision != rev {
					t.Fatalf("get(%s) = %v, want rev %d", k, e, rev)
				}
			}
			for i, v := range versions {
				if got := v.root.keys(); !slices.Equal(got, v.want) {
					t.Fatalf("version %d changed after later writes", i)
				}
			}
		})
	}
}

func TestBTreeDeleteAll(t *testing.T) {
	root := &node{}
	const n = 1000
	for i := 0; i < n; i++ {
		root, _ = treePut(root, testEntry(fmt.Sprintf("/k/%04d", i), 1), 1)
	}
	root.check(t, "", "", true)
	for i, p := range rand.New(rand.NewSource(2)).Perm(n) {
		root, _ = treeDelete(root, fmt.Sprintf("/k/%04d", p), uint64(i+2))
		if root == nil {
			t.Fatal("nil root")
		}
		if root.size != n-i-1 {
			t.Fatalf("size %d after %d deletes", root.size, i+1)
		}
	}
	root.check(t, "", "", true)
}

func TestBTreeCounts(t *testing.T) {
	root := &node{}
	for i := 0; i < 500; i += 2 {
		root, _ = treePut(root, testEntry(fmt.Sprintf("/k/%03d", i), 1), 1)
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
		{"/k/498", true, "", 0},
		{"/k/999", false, "", 0},
		{"/k/300", false, "/k/100", 0},
	} {
		if got := root.countFrom(tc.lo, tc.exclusive, tc.hi); got != tc.want {
			t.Errorf("countFrom(%q, %v, %q) = %d, want %d", tc.lo, tc.exclusive, tc.hi, got, tc.want)
		}
	}
	var got []string
	root.ascend("/k/101", func(e *Entry) bool {
		got = append(got, itemKey(e))
		return len(got) < 3
	})
	if want := []string{"/k/102", "/k/104", "/k/106"}; !slices.Equal(got, want) {
		t.Errorf("ascend from /k/101: %v", got)
	}
}

func TestKeyRange(t *testing.T) {
	for _, tc := range []struct{ prefix, lo, hi string }{
		{"/g/r/", "/g/r/", "/g/r0"},
		{"/g/r/ns/", "/g/r/ns/", "/g/r/ns0"},
		{"/g/r/ns/name", "/g/r/ns/name", "/g/r/ns/name\x00"},
		{"\xff/", "\xff/", "\xff0"},
	} {
		if lo, hi := keyRange(tc.prefix); lo != tc.lo || hi != tc.hi {
			t.Errorf("keyRange(%q) = %q, %q", tc.prefix, lo, hi)
		}
	}
}

func TestEvlog(t *testing.T) {
	var l evlog
	var views []evlog
	for i := 1; i <= 1000; i++ {
		l = l.appended(&record{rev: int64(i * 2)})
		if i%100 == 0 {
			views = append(views, l)
		}
		if i%300 == 0 {
			l = l.trimmed(l.end - 200)
		}
	}
	if l.len() != 300 || l.at(l.first).rev != 1402 {
		t.Fatalf("len %d, first rev %d", l.len(), l.at(l.first).rev)
	}
	for _, tc := range []struct {
		rev  int64
		want int64
	}{{0, l.first}, {1401, l.first}, {1402, l.first + 1}, {1403, l.first + 1}, {2000, l.end}, {5000, l.end}} {
		if got := l.search(tc.rev); got != tc.want {
			t.Errorf("search(%d) = %d, want %d", tc.rev, got, tc.want)
		}
	}
	for _, v := range views { // old views still read their records
		for seq := v.first; seq < v.end; seq++ {
			if v.at(seq).rev != (seq+1)*2 {
				t.Fatalf("view record %d has rev %d", seq, v.at(seq).rev)
			}
		}
	}
}

func TestAppendFrom(t *testing.T) {
	root := &node{}
	var all []string
	for i := 0; i < 3000; i += 3 {
		k := fmt.Sprintf("/k/%04d", i)
		root, _ = treePut(root, testEntry(k, 1), 1)
		all = append(all, k)
	}
	rnd := rand.New(rand.NewSource(4))
	for i := 0; i < 500; i++ {
		from := fmt.Sprintf("/k/%04d", rnd.Intn(3100))
		if i%50 == 0 {
			from = ""
		}
		want := rnd.Intn(1200)
		first := sort.SearchStrings(all, from)
		exp := all[first:min(len(all), first+want)]
		var got []string
		for _, e := range root.appendFrom(nil, from, want) {
			got = append(got, itemKey(e))
		}
		if !slices.Equal(got, exp) {
			t.Fatalf("appendFrom(%q, %d): %d keys, want %d", from, want, len(got), len(exp))
		}
	}
}
