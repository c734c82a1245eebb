package btree

import (
	"slices"
	"strings"
)

const (
	degree   = 16
	maxItems = 2*degree - 1 // items in a full node
	minItems = degree - 1   // items in a non-root node, at least, but see lastSplit
	// lastSplit is where a full node on the tree's right edge splits when
	// the new key goes after every key of the tree: all but two items stay
	// in the node, the last goes to the new one. Keys often come in
	// ascending order (numbered names), and a split in the middle would
	// leave every node but the last half empty for good. The nodes on the
	// right edge may then hold fewer than minItems items (at least one);
	// every other node holds at least minItems.
	lastSplit = maxItems - 2
)

// Node is a node of a copy-on-write B-tree of items of type T, and a
// *Node is the whole tree rooted at it. The nil *Node and a pointer to a
// zero Node are both empty trees. Apart from [Node.Len], trees are read
// and changed only through an [Ops].
//
// [Ops.Put] never returns nil, nor does [Ops.Delete] given a non-nil
// tree, so a tree that starts as new(Node[T]) stays non-nil even when
// emptied: a user can keep nil to mean "no tree".
type Node[T any] struct {
	items    []T
	children []*Node[T] // nil for a leaf, else len(items)+1 nodes
	size     int        // items in this subtree
	gen      uint64     // the change that created this node
}

// Len returns the number of items in the tree rooted at n.
func (n *Node[T]) Len() int {
	if n == nil {
		return 0
	}
	return n.size
}

// Ops holds the key function of trees of T and performs their operations.
// Make one with [NewOps]; the zero Ops is not usable. An Ops is one word:
// pass it by value.
type Ops[T any] struct {
	key func(T) string
}

// NewOps returns the operations on trees whose items are ordered by the
// strings key returns. key must be cheap and must return the same key for
// an item as long as the item is in a tree: trees call it on every
// comparison and keep no copy of the keys.
func NewOps[T any](key func(T) string) Ops[T] {
	return Ops[T]{key: key}
}

// find returns the index of the first item of n whose key is >= k and
// whether that item's key is k. It calls key once per probe: the item at
// the final index is the last one probed that was not less than k.
func (n *Node[T]) find(key func(T) string, k string) (int, bool) {
	lo, hi := 0, len(n.items)
	found := false
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c := strings.Compare(key(n.items[m]), k); c < 0 {
			lo = m + 1
		} else {
			hi, found = m, c == 0
		}
	}
	return lo, found
}

// Get returns the item of the tree root whose key is key, and whether
// there is one.
func (o Ops[T]) Get(root *Node[T], key string) (T, bool) {
	n := root
	for n != nil {
		i, found := n.find(o.key, key)
		if found {
			return n.items[i], true
		}
		if n.children == nil {
			break
		}
		n = n.children[i]
	}
	var zero T
	return zero, false
}

// mutable returns n when the change gen created it, else a copy of n
// stamped with gen.
func (n *Node[T]) mutable(gen uint64) *Node[T] {
	if n.gen == gen {
		return n
	}
	c := &Node[T]{size: n.size, gen: gen}
	c.items = make([]T, len(n.items), len(n.items)+1)
	copy(c.items, n.items)
	if n.children != nil {
		c.children = make([]*Node[T], len(n.children), len(n.children)+1)
		copy(c.children, n.children)
	}
	return c
}

// mutableChild makes children[i] of the mutable node n mutable and
// returns it.
func (n *Node[T]) mutableChild(i int, gen uint64) *Node[T] {
	c := n.children[i].mutable(gen)
	n.children[i] = c
	return c
}

// Put returns the tree root with item stored at its key, and the item it
// replaced, if any. Nodes of root that gen did not create are copied, not
// changed; nodes gen created are changed in place (see the package
// documentation).
func (o Ops[T]) Put(root *Node[T], item T, gen uint64) (_ *Node[T], old T, replaced bool) {
	if root == nil {
		return &Node[T]{items: []T{item}, size: 1, gen: gen}, old, false
	}
	root = root.mutable(gen)
	k := o.key(item)
	if len(root.items) == maxItems {
		mid, right := root.split(gen, root.splitAt(o.key, k, true))
		root = &Node[T]{
			items:    []T{mid},
			children: []*Node[T]{root, right},
			size:     root.size + right.size + 1,
			gen:      gen,
		}
	}
	old, replaced = root.insert(o.key, item, k, gen, true)
	return root, old, replaced
}

// splitAt is the index of the item the full node n splits at (see split)
// for a new key k: lastSplit when n is on the tree's right edge (last)
// and k goes after every key of n, the middle otherwise.
func (n *Node[T]) splitAt(key func(T) string, k string, last bool) int {
	if last && strings.Compare(k, key(n.items[len(n.items)-1])) > 0 {
		return lastSplit
	}
	return maxItems / 2
}

// split moves the items of the full, mutable node n after index i into a
// new node and returns the item at i and that node.
func (n *Node[T]) split(gen uint64, i int) (T, *Node[T]) {
	mid := n.items[i]
	r := &Node[T]{gen: gen, items: slices.Clone(n.items[i+1:])}
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

// insert stores item, whose key is k, below the mutable, non-full node n,
// splitting full children on the way down, and returns the item it
// replaced, if any. last is set when n is on the tree's right edge and k
// goes after every key left of n.
func (n *Node[T]) insert(key func(T) string, item T, k string, gen uint64, last bool) (old T, replaced bool) {
	i, found := n.find(key, k)
	if found {
		old = n.items[i]
		n.items[i] = item
		return old, true
	}
	if n.children == nil {
		n.items = slices.Insert(n.items, i, item)
		n.size++
		return old, false
	}
	if len(n.children[i].items) == maxItems {
		child := n.mutableChild(i, gen)
		mid, right := child.split(gen, child.splitAt(key, k, last && i == len(n.items)))
		n.items = slices.Insert(n.items, i, mid)
		n.children = slices.Insert(n.children, i+1, right)
		switch c := strings.Compare(k, key(mid)); {
		case c == 0:
			n.items[i] = item
			return mid, true
		case c > 0:
			i++
		}
	}
	old, replaced = n.mutableChild(i, gen).insert(key, item, k, gen, last && i == len(n.items))
	if !replaced {
		n.size++
	}
	return old, replaced
}

// Delete returns the tree root without the item at key, and that item, if
// any. When there is none it returns root itself, unchanged. Nodes of root
// that gen did not create are copied, not changed.
func (o Ops[T]) Delete(root *Node[T], key string, gen uint64) (_ *Node[T], old T, removed bool) {
	if _, ok := o.Get(root, key); !ok {
		return root, old, false
	}
	root = root.mutable(gen)
	old = root.remove(o.key, key, gen)
	if len(root.items) == 0 && root.children != nil {
		root = root.children[0]
	}
	return root, old, true
}

// remove deletes k, which is present, from the subtree of the mutable
// node n. Every child it descends into has more than minItems items first.
func (n *Node[T]) remove(key func(T) string, k string, gen uint64) T {
	i, found := n.find(key, k)
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
			n.children[i].remove(key, k, gen)
		}
		n.size--
		return old
	}
	if len(n.children[i].items) <= minItems {
		i = n.grow(i, gen)
	}
	old := n.mutableChild(i, gen).remove(key, k, gen)
	n.size--
	return old
}

// removeEdge removes and returns the largest (max) or smallest item of the
// subtree of the mutable node n.
func (n *Node[T]) removeEdge(max bool, gen uint64) T {
	if n.children == nil {
		var item T
		if max {
			last := len(n.items) - 1
			item = n.items[last]
			clear(n.items[last:])
			n.items = n.items[:last]
		} else {
			item = n.items[0]
			n.items = slices.Delete(n.items, 0, 1)
		}
		n.size--
		return item
	}
	i := 0
	if max {
		i = len(n.children) - 1
	}
	if len(n.children[i].items) <= minItems {
		i = n.grow(i, gen)
	}
	item := n.mutableChild(i, gen).removeEdge(max, gen)
	n.size--
	return item
}

// grow gives children[i] of the mutable node n more than minItems items,
// by taking one through n from a sibling that can spare it or by merging
// with a sibling, and returns the index of the child that now covers the
// keys children[i] covered.
func (n *Node[T]) grow(i int, gen uint64) int {
	switch {
	case i > 0 && len(n.children[i-1].items) > minItems:
		child, left := n.mutableChild(i, gen), n.mutableChild(i-1, gen)
		last := len(left.items) - 1
		child.items = slices.Insert(child.items, 0, n.items[i-1])
		n.items[i-1] = left.items[last]
		clear(left.items[last:])
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
func (n *Node[T]) merge(i int, gen uint64) {
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

// Ascend calls fn on every item of the tree root whose key is >= from, or
// > from when exclusive, in key order, until fn returns false. It reports
// whether fn never did.
func (o Ops[T]) Ascend(root *Node[T], from string, exclusive bool, fn func(T) bool) bool {
	if root == nil {
		return true
	}
	return root.ascend(o.key, from, exclusive, fn)
}

// ascend is [Ops.Ascend] on the non-nil tree n.
func (n *Node[T]) ascend(key func(T) string, from string, exclusive bool, fn func(T) bool) bool {
	i, found := n.find(key, from)
	if n.children == nil {
		if found && exclusive {
			i++
		}
		for _, item := range n.items[i:] {
			if !fn(item) {
				return false
			}
		}
		return true
	}
	// Every key after items[i] is greater than from; when items[i] is
	// from itself, every key of children[i] is smaller.
	if found {
		if !exclusive && !fn(n.items[i]) {
			return false
		}
	} else {
		if !n.children[i].ascend(key, from, exclusive, fn) {
			return false
		}
		if i == len(n.items) {
			return true
		}
		if !fn(n.items[i]) {
			return false
		}
	}
	for i++; ; i++ {
		if !n.children[i].ascendAll(fn) {
			return false
		}
		if i == len(n.items) {
			return true
		}
		if !fn(n.items[i]) {
			return false
		}
	}
}

// ascendAll calls fn on every item of the tree n in key order until fn
// returns false, and reports whether fn never did.
func (n *Node[T]) ascendAll(fn func(T) bool) bool {
	if n.children == nil {
		for _, item := range n.items {
			if !fn(item) {
				return false
			}
		}
		return true
	}
	for i, item := range n.items {
		if !n.children[i].ascendAll(fn) || !fn(item) {
			return false
		}
	}
	return n.children[len(n.items)].ascendAll(fn)
}

// AppendFrom appends to dst, in key order, the first limit items of the
// tree root whose key is >= from, or > from when exclusive (fewer when
// there are fewer), and returns the extended slice. It copies a leaf's run
// of items at once and calls nothing per item: it is the fast way to read
// a page of the tree.
func (o Ops[T]) AppendFrom(dst []T, root *Node[T], from string, exclusive bool, limit int) []T {
	if root == nil || limit <= 0 {
		return dst
	}
	return root.appendFrom(o.key, dst, from, exclusive, len(dst)+limit)
}

// appendFrom is [Ops.AppendFrom] on the non-nil tree n, until dst has end
// items; len(dst) < end.
func (n *Node[T]) appendFrom(key func(T) string, dst []T, from string, exclusive bool, end int) []T {
	i, found := n.find(key, from)
	if n.children == nil {
		if found && exclusive {
			i++
		}
		return append(dst, n.items[i:min(len(n.items), i+end-len(dst))]...)
	}
	if found {
		if !exclusive {
			dst = append(dst, n.items[i])
		}
	} else {
		dst = n.children[i].appendFrom(key, dst, from, exclusive, end)
		if i == len(n.items) || len(dst) == end {
			return dst
		}
		dst = append(dst, n.items[i])
	}
	for i++; len(dst) < end; i++ {
		dst = n.children[i].appendAll(dst, end)
		if i == len(n.items) || len(dst) == end {
			break
		}
		dst = append(dst, n.items[i])
	}
	return dst
}

// appendAll appends the items of the tree n to dst in key order until dst
// has end items; len(dst) < end.
func (n *Node[T]) appendAll(dst []T, end int) []T {
	if n.children == nil {
		return append(dst, n.items[:min(len(n.items), end-len(dst))]...)
	}
	for i := 0; ; i++ {
		dst = n.children[i].appendAll(dst, end)
		if i == len(n.items) || len(dst) == end {
			return dst
		}
		dst = append(dst, n.items[i])
		if len(dst) == end {
			return dst
		}
	}
}

// CountLess returns the number of items of the tree root whose key is
// < key, or <= key when orEqual. It costs O(log n).
func (o Ops[T]) CountLess(root *Node[T], key string, orEqual bool) int {
	c := 0
	for n := root; n != nil; {
		i, found := n.find(o.key, key)
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
			break
		}
		if n.children == nil {
			break
		}
		n = n.children[i]
	}
	return c
}

// CountRange returns the number of items of the tree root whose key is in
// [lo, hi), or in (lo, hi) when exclusive. An empty hi means no upper
// bound. It costs O(log n).
func (o Ops[T]) CountRange(root *Node[T], lo string, exclusive bool, hi string) int {
	end := root.Len()
	if hi != "" {
		end = o.CountLess(root, hi, false)
	}
	return max(0, end-o.CountLess(root, lo, exclusive))
}
