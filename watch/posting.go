package watch

import (
	"slices"

	"github.com/kapi-dev/kapi/internal/btree"
)

// posting is the set of keys of the objects that have one term. Many
// terms belong to one object each (a label whose value names the object,
// such as app.kubernetes.io/instance=<name>): the only key of such a
// term is kept in one, and keys stays nil until a second key comes, which
// saves a tree node and its items per object for each such term.
//
// A term many objects share gains a key with every create, and adding
// it to the tree copied the tree's path (its nodes and their items) for
// every change. The keys added lately wait in recent instead, a short
// sorted slice a change copies whole, and go into the tree together once
// it is full, sharing one copy of the path.
type posting struct {
	term   string
	one    string              // the only key, when keys is nil; "" for none
	keys   *btree.Node[string] // the keys, when there may be more than one
	recent []string            // more keys, sorted, none in keys; only with keys
	gen    uint64              // the change that created this posting value
}

// recentKeys bounds posting.recent.
const recentKeys = 32

// mutablePosting returns p when gen created it, else a copy of it
// stamped with gen, with recent of its own.
func mutablePosting(p *posting, gen uint64) *posting {
	if p.gen == gen {
		return p
	}
	c := &posting{term: p.term, one: p.one, keys: p.keys, gen: gen}
	if len(p.recent) > 0 {
		c.recent = append(make([]string, 0, len(p.recent)+1), p.recent...)
	}
	return c
}

// len returns the number of keys. A key added again after it went into
// the tree is in recent too, and counted twice, until it is removed (from
// both); ascend reads it once. The index adds a key to a posting only
// when the object did not have the term, so there are no such keys
// unless it has a bug, and the posting then stays right regardless.
func (p *posting) len() int {
	switch {
	case p.keys != nil:
		return p.keys.Len() + len(p.recent)
	case p.one != "":
		return 1
	}
	return 0
}

// add adds key to the mutable posting p.
func (p *posting) add(key string, gen uint64) {
	switch {
	case p.keys != nil:
		p.addRecent(key, gen)
	case p.one == "" || p.one == key:
		p.one = key
	default:
		p.keys, _, _ = keySet.Put(nil, p.one, gen)
		p.keys, _, _ = keySet.Put(p.keys, key, gen)
		p.one = ""
	}
}

// addRecent adds key to recent, unless recent has it, and moves recent
// into the tree once it is full. It does not look for key in the tree,
// which would cost a descent per key added for what does not happen
// (see len).
func (p *posting) addRecent(key string, gen uint64) {
	i, found := slices.BinarySearch(p.recent, key)
	if found {
		return
	}
	p.recent = slices.Insert(p.recent, i, key)
	if len(p.recent) < recentKeys {
		return
	}
	for _, k := range p.recent {
		p.keys, _, _ = keySet.Put(p.keys, k, gen)
	}
	p.recent = nil
}

// remove removes key from the mutable posting p.
func (p *posting) remove(key string, gen uint64) {
	switch {
	case p.keys != nil:
		if i, found := slices.BinarySearch(p.recent, key); found {
			p.recent = slices.Delete(p.recent, i, i+1)
		}
		p.keys, _, _ = keySet.Delete(p.keys, key, gen) // the tree as it was when key is not in it
	case p.one == key:
		p.one = ""
	}
}

// ascend calls fn on the keys >= start in order until fn returns false.
func (p *posting) ascend(start string, fn func(string) bool) {
	if p.keys == nil {
		if p.one != "" && p.one >= start {
			fn(p.one)
		}
		return
	}
	r, _ := slices.BinarySearch(p.recent, start)
	more := keySet.Ascend(p.keys, start, false, func(k string) bool {
		for ; r < len(p.recent) && p.recent[r] <= k; r++ {
			if p.recent[r] < k && !fn(p.recent[r]) {
				return false
			}
		}
		return fn(k)
	})
	for ; more && r < len(p.recent); r++ {
		if !fn(p.recent[r]) {
			return
		}
	}
}
