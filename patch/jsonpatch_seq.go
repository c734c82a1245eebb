package patch

import "math/rand/v2"

// A JSON patch may insert into, remove from and move within the middle of
// a list up to 10,000 times. Done on a slice, each such edit moves the
// rest of the list, so that a patch of small operations on a long list
// cost the product of their numbers. A list edited other than at its end
// is therefore turned into a seq, an implicit treap (a randomly balanced
// tree ordered by position), whose edits and look-ups cost the logarithm
// of its length; the patched document gets slices back at the end.

type seqNode struct {
	val         any
	pri         uint32
	size        int
	left, right *seqNode
}

func (n *seqNode) len() int {
	if n == nil {
		return 0
	}
	return n.size
}

func (n *seqNode) fix() { n.size = 1 + n.left.len() + n.right.len() }

// seq is a list being edited by a JSON patch.
type seq struct{ root *seqNode }

// seqFrom builds a balanced seq of the elements of l in O(len(l)).
func seqFrom(l []any) *seq {
	nodes := make([]seqNode, len(l))
	for i := range nodes {
		nodes[i] = seqNode{val: l[i], pri: rand.Uint32()}
	}
	return &seq{root: buildSeq(nodes)}
}

// buildSeq makes a balanced tree of nodes, then moves priorities (labels
// only, the shape stays) so that every parent's is the highest of its
// subtree.
func buildSeq(nodes []seqNode) *seqNode {
	if len(nodes) == 0 {
		return nil
	}
	mid := len(nodes) / 2
	n := &nodes[mid]
	n.left, n.right = buildSeq(nodes[:mid]), buildSeq(nodes[mid+1:])
	n.fix()
	for c := n; ; {
		top := c
		if c.left != nil && c.left.pri > top.pri {
			top = c.left
		}
		if c.right != nil && c.right.pri > top.pri {
			top = c.right
		}
		if top == c {
			return n
		}
		c.pri, top.pri = top.pri, c.pri
		c = top
	}
}

// split returns the first k elements of n and the rest.
func split(n *seqNode, k int) (*seqNode, *seqNode) {
	if n == nil {
		return nil, nil
	}
	if n.left.len() >= k {
		l, r := split(n.left, k)
		n.left = r
		n.fix()
		return l, n
	}
	l, r := split(n.right, k-n.left.len()-1)
	n.right = l
	n.fix()
	return n, r
}

func join(a, b *seqNode) *seqNode {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.pri > b.pri:
		a.right = join(a.right, b)
		a.fix()
		return a
	}
	b.left = join(a, b.left)
	b.fix()
	return b
}

func (s *seq) len() int { return s.root.len() }

// node returns the node at position i, which must exist.
func (s *seq) node(i int) *seqNode {
	n := s.root
	for {
		switch l := n.left.len(); {
		case i < l:
			n = n.left
		case i == l:
			return n
		default:
			i -= l + 1
			n = n.right
		}
	}
}

func (s *seq) insert(i int, v any) {
	l, r := split(s.root, i)
	s.root = join(join(l, &seqNode{val: v, pri: rand.Uint32(), size: 1}), r)
}

func (s *seq) delete(i int) {
	l, r := split(s.root, i)
	_, r = split(r, 1)
	s.root = join(l, r)
}

// slice returns the elements in order.
func (s *seq) slice() []any {
	out := make([]any, 0, s.len())
	var walk func(n *seqNode)
	walk = func(n *seqNode) {
		for n != nil {
			walk(n.left)
			out = append(out, n.val)
			n = n.right
		}
	}
	walk(s.root)
	return out
}

// plain replaces, in place, every seq in v by the slice of its elements,
// and returns v's plain form.
func plain(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = plain(e)
		}
	case []any:
		for i, e := range t {
			t[i] = plain(e)
		}
	case *seq:
		return plain(t.slice())
	}
	return v
}

// plainCopy returns a deep copy of v without seqs, leaving v as it is.
func plainCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = plainCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, e := range t {
			l[i] = plainCopy(e)
		}
		return l
	case *seq:
		return plainCopy(t.slice())
	}
	return v
}
