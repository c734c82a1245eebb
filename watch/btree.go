package watch

import (
	"slices"
	"strings"
)

// The mirror is a copy-on-write B-tree of *Entry ordered by key, with the
// size of every subtree so that range counts (a list's Remaining) cost
// O(log n).
//
// A tree a reader can see is immutable. Every change is made with a
// generation number: nodes stamped with that generation belong to the
// change in progress and are edited in place; any other node on the path is
// copied first. Each event uses a fresh generation, so every event's root
// is a snapshot that later events never touch; a (re)list builds its whole
// tree with one generation, in place. The empty tree is an empty leaf,
// never nil.
const (
	btreeDegree = 16
	maxItems    = 2*btreeDegree - 1
	minItems    = btreeDegree - 1
)

type node struct {
	items    []*Entry
	children []*node // nil for a leaf, else len(items)+1 nodes
	size     int     // items in this subtree
	gen      uint64  // the change that created this node
}

func itemKey(e *Entry) string { return e.KV.Key }

// find returns the index of the first item whose key is >= key and
// whether that item's key is key.
func (n *node) find(key string) (int, bool) {
	lo, hi := 0, len(n.items)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if itemKey(n.items[m]) < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(n.items) && itemKey(n.items[lo]) == key
}

// get returns the entry at key, or nil.
func (n *node) get(key string) *Entry {
	for {
		i, found := n.find(key)
		if found {
			return n.items[i]
		}
		if n.children == nil {
			return nil
		}
		n = n.children[i]
	}
}

// mutable returns n when the change gen created it, else a copy of n
// stamped with gen.
func (n *node) mutable(gen uint64) *node {
	if n.gen == gen {
		return n
	}
	c := &node{size: n.size, gen: gen}
	c.items = make([]*Entry, len(n.items), len(n.items)+1)
	copy(c.items, n.items)
	if n.children != nil {
		c.children = make([]*node, len(n.children), len(n.children)+1)
		copy(c.children, n.children)
	}
	return c
}

// mutableChild makes children[i] mutable and returns it.
func (n *node) mutableChild(i int, gen uint64) *node {
	c := n.children[i].mutable(gen)
	n.children[i] = c
	return c
}

// treePut returns the tree with e stored at its key and the entry it
// replaced, if any.
func treePut(root *node, e *Entry, gen uint64) (*node, *Entry) {
	root = root.mutable(gen)
	if len(root.items) == maxItems {
		mid, right := root.split(gen)
		root = &node{
			items:    []*Entry{mid},
			children: []*node{root, right},
			size:     root.size + right.size + 1,
			gen:      gen,
		}
	}
	return root, root.insert(e, gen)
}

// split moves the upper half of the full, mutable node n into a new node
// and returns the middle item and that node.
func (n *node) split(gen uint64) (*Entry, *node) {
	const i = maxItems / 2
	mid := n.items[i]
	r := &node{gen: gen, items: slices.Clone(n.items[i+1:])}
	clear(n.items[i:])
	n.items = n.items[:i]
	r.size = len(r.items)
	if n.children != nil {
		r.children = slices.Clone(n.children[i+1:])
		clear(n.children[i+1:])
		n.children = n.children[:i+1]
		for _, c := range r.children {
			r.size += c.size
		}
	}
	n.size -= r.size + 1
	return mid, r
}

// insert stores e below the mutable, non-full node n, splitting full
// children on the way down, and returns the entry it replaced.
func (n *node) insert(e *Entry, gen uint64) *Entry {
	key := itemKey(e)
	i, found := n.find(key)
	if found {
		old := n.items[i]
		n.items[i] = e
		return old
	}
	if n.children == nil {
		n.items = slices.Insert(n.items, i, e)
		n.size++
		return nil
	}
	if len(n.children[i].items) == maxItems {
		mid, right := n.mutableChild(i, gen).split(gen)
		n.items = slices.Insert(n.items, i, mid)
		n.children = slices.Insert(n.children, i+1, right)
		switch c := strings.Compare(key, itemKey(mid)); {
		case c == 0:
			n.items[i] = e
			return mid
		case c > 0:
			i++
		}
	}
	old := n.mutableChild(i, gen).insert(e, gen)
	if old == nil {
		n.size++
	}
	return old
}

// treeDelete returns the tree without key and the entry removed (nil, and
// root itself, when key is absent).
func treeDelete(root *node, key string, gen uint64) (*node, *Entry) {
	if root.get(key) == nil {
		return root, nil
	}
	root = root.mutable(gen)
	old := root.remove(key, gen)
	if len(root.items) == 0 && root.children != nil {
		root = root.children[0]
	}
	return root, old
}

// remove deletes key, which is present, from the subtree of the mutable
// node n. Every child it descends into has more than minItems items first.
func (n *node) remove(key string, gen uint64) *Entry {
	i, found := n.find(key)
	if n.children == nil {
		old := n.items[i]
		n.items = slices.Delete(n.items, i, i+1)
		n.size--
		return old
	}
	if found {
		old := n.items[i]
		switch {
		case len(n.children[i].items) > minItems:
			n.items[i] = n.mutableChild(i, gen).removeEdge(true, gen)
		case len(n.children[i+1].items) > minItems:
			n.items[i] = n.mutableChild(i+1, gen).removeEdge(false, gen)
		default:
			n.merge(i, gen)
			n.children[i].remove(key, gen)
		}
		n.size--
		return old
	}
	if len(n.children[i].items) <= minItems {
		i = n.grow(i, gen)
	}
	old := n.mutableChild(i, gen).remove(key, gen)
	n.size--
	return old
}

// removeEdge removes and returns the largest (max) or smallest item of the
// subtree of the mutable node n.
func (n *node) removeEdge(max bool, gen uint64) *Entry {
	if n.children == nil {
		var e *Entry
		if max {
			last := len(n.items) - 1
			e = n.items[last]
			n.items[last] = nil
			n.items = n.items[:last]
		} else {
			e = n.items[0]
			n.items = slices.Delete(n.items, 0, 1)
		}
		n.size--
		return e
	}
	i := 0
	if max {
		i = len(n.children) - 1
	}
	if len(n.children[i].items) <= minItems {
		i = n.grow(i, gen)
	}
	e := n.mutableChild(i, gen).removeEdge(max, gen)
	n.size--
	return e
}

// grow gives children[i] of the mutable node n more than minItems items,
// by taking one through n from a sibling that can spare it or by merging
// with a sibling, and returns the index of the child that now covers the
// keys children[i] covered.
func (n *node) grow(i int, gen uint64) int {
	switch {
	case i > 0 && len(n.children[i-1].items) > minItems:
		child, left := n.mutableChild(i, gen), n.mutableChild(i-1, gen)
		last := len(left.items) - 1
		child.items = slices.Insert(child.items, 0, n.items[i-1])
		n.items[i-1] = left.items[last]
		left.items[last] = nil
		left.items = left.items[:last]
		moved := 1
		if left.children != nil {
			lc := len(left.children) - 1
			c := left.children[lc]
			left.children[lc] = nil
			left.children = left.children[:lc]
			child.children = slices.Insert(child.children, 0, c)
			moved += c.size
		}
		left.size -= moved
		child.size += moved
		return i
	case i < len(n.items) && len(n.children[i+1].items) > minItems:
		child, right := n.mutableChild(i, gen), n.mutableChild(i+1, gen)
		child.items = append(child.items, n.items[i])
		n.items[i] = right.items[0]
		right.items = slices.Delete(right.items, 0, 1)
		moved := 1
		if right.children != nil {
			c := right.children[0]
			right.children = slices.Delete(right.children, 0, 1)
			child.children = append(child.children, c)
			moved += c.size
		}
		right.size -= moved
		child.size += moved
		return i
	case i < len(n.items):
		n.merge(i, gen)
		return i
	default:
		n.merge(i-1, gen)
		return i - 1
	}
}

// merge joins children[i], items[i] and children[i+1] of the mutable node
// n into one mutable child at i.
func (n *node) merge(i int, gen uint64) {
	left, right := n.mutableChild(i, gen), n.children[i+1]
	left.items = append(left.items, n.items[i])
	left.items = append(left.items, right.items...)
	if left.children != nil {
		left.children = append(left.children, right.children...)
	}
	left.size += 1 + right.size
	n.items = slices.Delete(n.items, i, i+1)
	n.children = slices.Delete(n.children, i+1, i+2)
}

// ascend calls fn on every entry whose key is >= from, in key order, until
// fn returns false; it reports whether fn never did.
func (n *node) ascend(from string, fn func(*Entry) bool) bool {
	i, _ := n.find(from)
	for ; i <= len(n.items); i++ {
		if n.children != nil && !n.children[i].ascend(from, fn) {
			return false
		}
		if i < len(n.items) && !fn(n.items[i]) {
			return false
		}
	}
	return true
}

// appendFrom appends to dst, in key order, the entries whose key is >=
// from until dst holds end entries, copying runs of a leaf at once.
func (n *node) appendFrom(dst []*Entry, from string, end int) []*Entry {
	i := 0
	if from != "" {
		i, _ = n.find(from)
	}
	if n.children == nil {
		return append(dst, n.items[i:min(len(n.items), i+end-len(dst))]...)
	}
	for ; i <= len(n.items) && len(dst) < end; i++ {
		dst = n.children[i].appendFrom(dst, from, end)
		from = "" // every later key is greater
		if i < len(n.items) && len(dst) < end {
			dst = append(dst, n.items[i])
		}
	}
	return dst
}

// countLess returns the number of keys < key, or <= key when orEqual.
func (n *node) countLess(key string, orEqual bool) int {
	c := 0
	for {
		i, found := n.find(key)
		c += i
		if n.children != nil {
			for _, child := range n.children[:i] {
				c += child.size
			}
		}
		if found {
			if orEqual {
				c++
			}
			if n.children != nil {
				c += n.children[i].size
			}
			return c
		}
		if n.children == nil {
			return c
		}
		n = n.children[i]
	}
}

// countFrom returns the number of keys in [lo, hi) ("" hi: no end), or in
// (lo, hi) when exclusive.
func (n *node) countFrom(lo string, exclusive bool, hi string) int {
	end := n.size
	if hi != "" {
		end = n.countLess(hi, false)
	}
	return max(0, end-n.countLess(lo, exclusive))
}
