package memory

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/kapi-dev/kapi/storage"
)

// check verifies the B-tree invariants below n and returns its depth.
func (n *node) check(t *testing.T, root bool, lo, hi string) int {
	t.Helper()
	if !root && (len(n.items) < minItems || len(n.items) > maxItems) {
		t.Fatalf("node with %d items", len(n.items))
	}
	size := len(n.items)
	for i, it := range n.items {
		if lo != "" && it.Key <= lo || hi != "" && it.Key >= hi || i > 0 && it.Key <= n.items[i-1].Key {
			t.Fatalf("key %q out of order in (%q, %q)", it.Key, lo, hi)
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
	depth := -1
	for i, c := range n.children {
		clo, chi := lo, hi
		if i > 0 {
			clo = n.items[i-1].Key
		}
		if i < len(n.items) {
			chi = n.items[i].Key
		}
		d := c.check(t, false, clo, chi)
		if depth >= 0 && d != depth {
			t.Fatalf("unbalanced: depths %d and %d", depth, d)
		}
		depth = d
		size += c.size
	}
	if n.size != size {
		t.Fatalf("size %d, has %d", n.size, size)
	}
	return depth + 1
}

func TestTreeRandom(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	var root *node
	model := map[string]*storage.KeyValue{}
	type version struct {
		root  *node
		model map[string]*storage.KeyValue
	}
	var old []version
	maxDepth := 0
	for gen := int64(1); gen <= 40000; gen++ {
		key := fmt.Sprintf("k%05d", rnd.Intn(6000))
		if gen > 20000 && rnd.Intn(2) == 0 || gen > 30000 {
			var out *storage.KeyValue
			root, out = treeDelete(root, key, gen)
			if out != model[key] {
				t.Fatalf("delete %q returned %v, want %v", key, out, model[key])
			}
			delete(model, key)
		} else {
			kv := &storage.KeyValue{Key: key, ModRevision: gen}
			var out *storage.KeyValue
			root, out = treePut(root, kv, gen)
			if out != model[key] {
				t.Fatalf("put %q replaced %v, want %v", key, out, model[key])
			}
			model[key] = kv
		}
		if gen%2000 == 0 {
			if root != nil {
				maxDepth = max(maxDepth, root.check(t, true, "", ""))
			}
			checkTree(t, root, model, rnd)
			old = append(old, version{root, maps(model)})
		}
	}
	if maxDepth < 3 {
		t.Fatalf("max depth %d: the test does not exercise deep trees", maxDepth)
	}
	// Published trees never change.
	for _, v := range old {
		checkTree(t, v.root, v.model, rnd)
	}
}

func maps(m map[string]*storage.KeyValue) map[string]*storage.KeyValue {
	c := make(map[string]*storage.KeyValue, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func checkTree(t *testing.T, root *node, model map[string]*storage.KeyValue, rnd *rand.Rand) {
	t.Helper()
	keys := make([]string, 0, len(model))
	for k := range model {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var got []string
	root.ascend("", false, func(kv *storage.KeyValue) bool {
		if model[kv.Key] != kv {
			t.Fatalf("tree holds %q=%v, model %v", kv.Key, kv, model[kv.Key])
		}
		got = append(got, kv.Key)
		return true
	})
	if !slices.Equal(got, keys) {
		t.Fatalf("tree has %d keys, model %d", len(got), len(keys))
	}
	for i := 0; i < 20; i++ {
		lo := fmt.Sprintf("k%04d", rnd.Intn(700))
		hi := prefixEnd(lo)
		excl := rnd.Intn(2) == 0
		want := 0
		var first []string
		for _, k := range keys {
			if (k > lo || !excl && k == lo) && k < hi {
				want++
				if len(first) < 3 {
					first = append(first, k)
				}
			}
		}
		if got := root.countRange(lo, excl, hi); got != want {
			t.Fatalf("countRange(%q, %v, %q) = %d, want %d", lo, excl, hi, got, want)
		}
		var asc []string
		root.ascend(lo, excl, func(kv *storage.KeyValue) bool {
			if kv.Key >= hi {
				return false
			}
			asc = append(asc, kv.Key)
			return len(asc) < 3
		})
		if !slices.Equal(asc, first) {
			t.Fatalf("ascend(%q, %v) = %q, want %q", lo, excl, asc, first)
		}
	}
}

// TestListAtRevisionLarge compares lists at past revisions with a model on
// a store big enough for deep trees and long histories.
func TestListAtRevisionLarge(t *testing.T) {
	s := New(Options{HistoryWindow: 3000})
	defer s.Close()
	ctx := context.Background()
	rnd := rand.New(rand.NewSource(7))
	model := map[string]*storage.KeyValue{}
	var snaps []map[string]*storage.KeyValue
	var revs []int64
	for i := 0; i < 6000; i++ {
		key := fmt.Sprintf("/p/%04d", rnd.Intn(1500))
		if kv := model[key]; kv != nil && rnd.Intn(3) == 0 {
			if resp, _ := s.OptimisticDelete(ctx, key, kv.ModRevision, storage.DeleteOptions{}); !resp.Succeeded {
				t.Fatal("delete failed")
			}
			delete(model, key)
		} else {
			var expected int64
			if kv != nil {
				expected = kv.ModRevision
			}
			resp, _ := s.OptimisticPut(ctx, key, []byte{byte(i)}, expected, storage.PutOptions{})
			if !resp.Succeeded {
				t.Fatal("put failed")
			}
			model[key] = resp.KV
		}
		if i%500 == 499 {
			rev, _ := s.Revision(ctx)
			revs, snaps = append(revs, rev), append(snaps, maps(model))
		}
	}
	for i, rev := range revs {
		if _, err := s.List(ctx, "/p/", storage.ListOptions{Revision: rev}); i < len(revs)-6 {
			if !storage.IsCompacted(err) {
				t.Fatalf("List at %d: %v", rev, err)
			}
			continue
		}
		var keys []string
		for k := range snaps[i] {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		after, pos := "", 0
		for {
			l, err := s.List(ctx, "/p/", storage.ListOptions{Revision: rev, After: after, Limit: 97})
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range l.KVs {
				if kv != snaps[i][keys[pos]] {
					t.Fatalf("at %d item %d: %q, want %q", rev, pos, kv.Key, keys[pos])
				}
				pos++
			}
			if int(l.Remaining) != len(keys)-pos {
				t.Fatalf("at %d: remaining %d, want %d", rev, l.Remaining, len(keys)-pos)
			}
			if l.Remaining == 0 {
				break
			}
			after = l.KVs[len(l.KVs)-1].Key
		}
		if pos != len(keys) {
			t.Fatalf("at %d: listed %d of %d", rev, pos, len(keys))
		}
	}
}
