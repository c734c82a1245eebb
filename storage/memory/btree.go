package memory

import (
	"slices"

	"github.com/kapi-dev/kapi/storage"
)

// The tree is a copy-on-write B-tree of *storage.KeyValue ordered by key,
// with subtree sizes so that range counts cost O(log n).
//
// A published tree is immutable. A write clones the nodes on its path; each
// clone is stamped with the write's generation (its revision), so a node the
// same write already cloned is mutated in place instead of cloned again.
const (
	degree   = 16
	maxItems = 2*degree - 1
	minItems = degree - 1
)

type node struct {
	items    []*storage.KeyValue
	children []*node // nil for a leaf, else len(items)+1 entries
	size     int     // number of items in this subtree
	gen      int64   // generation of the write that created this node
}

// find returns the index of the first item whose key is >= key, and
// whether that item's key equals key.
func (n *node) find(key string) (int, bool) {
	lo, hi := 0, len(n.items)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if n.items[m].Key < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(n.items) && n.items[lo].Key == key
}

// get returns the item stored at key, or nil.
func (n *node) get(key string) *storage.KeyValue {
	for n != nil {
		i, found := n.find(key)
		if found {
			return n.items[i]
		}
		if n.children == nil {
			return nil
		}
		n = n.children[i]
	}
	return nil
}

// mutable returns n itself when the write of generation gen created it, or
// else a copy stamped with gen.
func (n *node) mutable(gen int64) *node {
	if n.gen == gen {
		return n
	}
	c := &node{size: n.size, gen: gen}
	c.items = make([]*storage.KeyValue, len(n.items), len(n.items)+1)
	copy(c.items, n.items)
	if n.children != nil {
		c.children = make([]*node, len(n.children), len(n.children)+1)
		copy(c.children, n.children)
	}
	return c
}

// mutableChild makes children[i] mutable and returns it.
func (n *node) mutableChild(i int, gen int64) *node {
	c := n.children[i].mutable(gen)
	n.children[i] = c
	return c
}

// treePut returns a tree in which kv replaces or adds its key, and the item
// it replaced (nil when the key is new). root is left untouched unless gen
// created it.
func treePut(root *node, kv *storage.KeyValue, gen int64) (*node, *storage.KeyValue) {
	if root == nil {
		return &node{items: []*storage.KeyValue{kv}, size: 1, gen: gen}, nil
	}
	root = root.mutable(gen)
	if len(root.items) >= maxItems {
		mid, right := root.split(maxItems/2, gen)
		root = &node{
			items:    []*storage.KeyValue{mid},
			children: []*node{root, right},
			size:     root.size + right.size + 1,
			gen:      gen,
		}
	}
	return root, root.insert(kv, gen)
}

// split moves the items after index i, with their children, into a new
// node, and returns item i and that node. n must be mutable.
func (n *node) split(i int, gen int64) (*storage.KeyValue, *node) {
	mid := n.items[i]
	r := &node{gen: gen}
	r.items = append(make([]*storage.KeyValue, 0, maxItems), n.items[i+1:]...)
	clear(n.items[i:])
	n.items = n.items[:i]
	r.size = len(r.items)
	if n.children != nil {
		r.children = append(make([]*node, 0, maxItems+1), n.children[i+1:]...)
		clear(n.children[i+1:])
		n.children = n.children[:i+1]
		for _, c := range r.children {
			r.size += c.size
		}
	}
	n.size -= r.size + 1
	return mid, r
}

// insert adds or replaces kv below the mutable node n, splitting full
// children on the way down, and returns the replaced item.
func (n *node) insert(kv *storage.KeyValue, gen int64) *storage.KeyValue {
	i, found := n.find(kv.Key)
	if found {
		old := n.items[i]
		n.items[i] = kv
		return old
	}
	if n.children == nil {
		n.items = slices.Insert(n.items, i, kv)
		n.size++
		return nil
	}
	if len(n.children[i].items) >= maxItems {
		mid, right := n.mutableChild(i, gen).split(maxItems/2, gen)
		n.items = slices.Insert(n.items, i, mid)
		n.children = slices.Insert(n.children, i+1, right)
		switch {
		case kv.Key == mid.Key:
			n.items[i] = kv
			return mid
		case kv.Key > mid.Key:
			i++
		}
	}
	old := n.mutableChild(i, gen).insert(kv, gen)
	if old == nil {
		n.size++
	}
	return old
}

// treeDelete returns a tree without key and the item removed (nil when the
// key is absent, in which case root is returned unchanged).
func treeDelete(root *node, key string, gen int64) (*node, *storage.KeyValue) {
	if root.get(key) == nil {
		return root, nil
	}
	root = root.mutable(gen)
	old := root.remove(key, false, gen)
	if len(root.items) == 0 {
		if root.children == nil {
			return nil, old
		}
		return root.children[0], old
	}
	return root, old
}

// remove deletes key (or, when max is set, the largest item) from the
// subtree of the mutable node n, keeping every visited child above the
// minimum size on the way down.
func (n *node) remove(key string, max bool, gen int64) *storage.KeyValue {
	var i int
	var found bool
	if max {
		i = len(n.items)
		if n.children == nil {
			out := n.items[i-1]
			n.items[i-1] = nil
			n.items = n.items[:i-1]
			n.size--
			return out
		}
	} else {
		i, found = n.find(key)
		if n.children == nil {
			if !found {
				return nil
			}
			out := n.items[i]
			n.items = slices.Delete(n.items, i, i+1)
			n.size--
			return out
		}
	}
	if len(n.children[i].items) <= minItems {
		n.grow(i, gen)
		return n.remove(key, max, gen)
	}
	child := n.mutableChild(i, gen)
	var out *storage.KeyValue
	if found {
		// Replace the item with its predecessor, the largest item of
		// the child on its left.
		out = n.items[i]
		n.items[i] = child.remove("", true, gen)
	} else {
		out = child.remove(key, max, gen)
	}
	if out != nil {
		n.size--
	}
	return out
}

// grow gives children[i] more than minItems items by stealing one from a
// sibling or merging with one. The subtree's size does not change.
func (n *node) grow(i int, gen int64) {
	switch {
	case i > 0 && len(n.children[i-1].items) > minItems:
		child, left := n.mutableChild(i, gen), n.mutableChild(i-1, gen)
		last := len(left.items) - 1
		stolen := left.items[last]
		left.items[last] = nil
		left.items = left.items[:last]
		child.items = slices.Insert(child.items, 0, n.items[i-1])
		n.items[i-1] = stolen
		moved := 1
		if left.children != nil {
			last := len(left.children) - 1
			c := left.children[last]
			left.children[last] = nil
			left.children = left.children[:last]
			child.children = slices.Insert(child.children, 0, c)
			moved += c.size
		}
		left.size -= moved
		child.size += moved
	case i < len(n.items) && len(n.children[i+1].items) > minItems:
		child, right := n.mutableChild(i, gen), n.mutableChild(i+1, gen)
		stolen := right.items[0]
		right.items = slices.Delete(right.items, 0, 1)
		child.items = append(child.items, n.items[i])
		n.items[i] = stolen
		moved := 1
		if right.children != nil {
			c := right.children[0]
			right.children = slices.Delete(right.children, 0, 1)
			child.children = append(child.children, c)
			moved += c.size
		}
		right.size -= moved
		child.size += moved
	default:
		if i >= len(n.items) {
			i--
		}
		child := n.mutableChild(i, gen)
		mid, right := n.items[i], n.children[i+1]
		n.items = slices.Delete(n.items, i, i+1)
		n.children = slices.Delete(n.children, i+1, i+2)
		child.items = append(child.items, mid)
		child.items = append(child.items, right.items...)
		child.children = append(child.children, right.children...)
		child.size += 1 + right.size
	}
}

// ascend calls fn on every item whose key is >= lo (> lo when exclusive),
// in key order, until fn returns false. It reports whether fn never did.
func (n *node) ascend(lo string, exclusive bool, fn func(*storage.KeyValue) bool) bool {
	if n == nil {
		return true
	}
	i, found := n.find(lo)
	for ; i <= len(n.items); i++ {
		// When items[i] is lo itself, children[i] holds smaller keys.
		if n.children != nil && !found {
			if !n.children[i].ascend(lo, exclusive, fn) {
				return false
			}
		}
		if i == len(n.items) {
			break
		}
		if !(found && exclusive) && !fn(n.items[i]) {
			return false
		}
		found = false
	}
	return true
}

// countLess returns the number of items whose key is < key, or <= key
// when orEqual is set.
func (n *node) countLess(key string, orEqual bool) int {
	c := 0
	for n != nil {
		i, found := n.find(key)
		c += i
		if found && orEqual {
			c++
		}
		if n.children == nil {
			break
		}
		for _, child := range n.children[:i] {
			c += child.size
		}
		if found {
			c += n.children[i].size
			break
		}
		n = n.children[i]
	}
	return c
}

// countRange returns the number of keys in the range that starts at lo
// (exclusive or inclusive) and ends before hi ("" meaning no end).
func (n *node) countRange(lo string, exclusive bool, hi string) int {
	if n == nil {
		return 0
	}
	end := n.size
	if hi != "" {
		end = n.countLess(hi, false)
	}
	return max(0, end-n.countLess(lo, exclusive))
}
