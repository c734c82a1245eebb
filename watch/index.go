package watch

import (
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/internal/btree"
	"github.com/kapi-dev/kapi/storage"
)

// The index maps each term [Options.Index] gives an object (a label's
// key=value, say) to the keys of the objects that have it. It is part of
// the cache's state and changes with the mirror, copy-on-write with the
// same generations, so that a reader of a state sees the index of exactly
// that mirror. A selective list reads the keys of the terms its selector
// requires and looks up only those objects.

// pnode is the index: the postings of terms that have had two keys or
// more (multi) apart from those of one key (singles). A change indexes
// an object under each of its terms, and copies the path to each posting
// it changes; most terms of a collection are an object's own, a few are
// shared by many, and those few change with every write. Kept apart, the
// shared ones are in a tree of a few nodes, whose path is short, instead
// of among a posting per object. A single is a term and its key, less
// than a posting, which the index keeps for every object; it is never
// changed in place: it is deleted, or moved to multi as a posting of two
// keys. A posting in multi stays there until it is empty. No term is in
// both.
type pnode struct {
	multi   *btree.Node[*posting]
	singles *btree.Node[*single]
	gen     uint64 // the change that created this value
}

// single is the posting of a term with one key.
type single struct{ term, key string }

// Len returns the number of terms indexed.
func (ix *pnode) Len() int {
	if ix == nil {
		return 0
	}
	return ix.multi.Len() + ix.singles.Len()
}

// get returns the posting of term, and whether there is one.
func (ix *pnode) get(term string) (posting, bool) {
	if ix == nil {
		return posting{}, false
	}
	if p, _ := postings.Get(ix.multi, term); p != nil {
		return *p, true
	}
	if s, _ := singles.Get(ix.singles, term); s != nil {
		return posting{term: s.term, one: s.key}, true
	}
	return posting{}, false
}

// mutable returns ix when gen created it, else a copy of it stamped with
// gen (a new index for nil).
func (ix *pnode) mutable(gen uint64) *pnode {
	switch {
	case ix == nil:
		return &pnode{gen: gen}
	case ix.gen == gen:
		return ix
	}
	c := *ix
	c.gen = gen
	return &c
}

var (
	postings = btree.NewOps(func(p *posting) string { return p.term })
	singles  = btree.NewOps(func(s *single) string { return s.term })
	keySet   = btree.NewOps(func(k string) string { return k })
)

// terms returns the sorted, unique index terms of kv, or nil without an
// index.
func (c *Cache) terms(kv *storage.KeyValue) []string {
	if c.opts.Index == nil || kv == nil {
		return nil
	}
	t := c.opts.Index(kv)
	if !slices.IsSorted(t) {
		t = slices.Clone(t)
		slices.Sort(t)
	}
	return slices.Compact(t)
}

// reindex changes the index root for the object at key going from the
// terms before to the terms after, with generation gen.
func reindex(root *pnode, key string, before, after []string, gen uint64) *pnode {
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		switch {
		case j == len(after) || i < len(before) && before[i] < after[j]:
			root = unindex(root, before[i], key, gen)
			i++
		case i == len(before) || after[j] < before[i]:
			root = index(root, after[j], key, gen)
			j++
		default: // the term stays
			i++
			j++
		}
	}
	return root
}

// index adds key to the posting of term. A new posting keeps a copy of
// its term of its own: the terms of an object are often cut from one
// string of them all (see apiserver's term hints), which a term naming
// the object would otherwise keep whole for as long as the object lives.
func index(root *pnode, term, key string, gen uint64) *pnode {
	ix := root.mutable(gen)
	if p, _ := postings.Get(ix.multi, term); p != nil {
		np := mutablePosting(p, gen)
		np.add(key, gen)
		if np != p {
			ix.multi, _, _ = postings.Put(ix.multi, np, gen)
		}
		return ix
	}
	s, _ := singles.Get(ix.singles, term)
	switch {
	case s == nil:
		ix.singles, _, _ = singles.Put(ix.singles, &single{term: strings.Clone(term), key: key}, gen)
	case s.key != key: // a second key: the term moves to multi
		ix.singles, _, _ = singles.Delete(ix.singles, term, gen)
		np := &posting{term: s.term, one: s.key, gen: gen}
		np.add(key, gen)
		ix.multi, _, _ = postings.Put(ix.multi, np, gen)
	}
	return ix
}

// unindex removes key from the posting of term, and the posting when it
// is left empty.
func unindex(root *pnode, term, key string, gen uint64) *pnode {
	ix := root.mutable(gen)
	if p, _ := postings.Get(ix.multi, term); p != nil {
		np := mutablePosting(p, gen)
		np.remove(key, gen)
		switch {
		case np.len() == 0:
			ix.multi, _, _ = postings.Delete(ix.multi, term, gen)
		case np != p:
			ix.multi, _, _ = postings.Put(ix.multi, np, gen)
		}
		return ix
	}
	if s, _ := singles.Get(ix.singles, term); s != nil && s.key == key {
		ix.singles, _, _ = singles.Delete(ix.singles, term, gen)
	}
	return ix
}

// candidates returns the keys in [start, hi) of the objects that have at
// least one term of the set with the fewest objects in total, in key
// order, and ok; ok is false when the state has no index or no set was
// given.
func candidates(root *pnode, sets [][]string, start, hi string) (keys []string, ok bool) {
	if root == nil || len(sets) == 0 {
		return nil, false
	}
	var best []posting
	bestLen := -1
	for _, set := range sets {
		var ps []posting
		n := 0
		for _, term := range set {
			if p, ok := root.get(term); ok {
				ps = append(ps, p)
				n += p.len()
			}
		}
		if bestLen < 0 || n < bestLen {
			best, bestLen = ps, n
		}
	}
	keys = make([]string, 0, bestLen)
	for _, p := range best {
		p.ascend(start, func(k string) bool {
			if hi != "" && k >= hi {
				return false
			}
			keys = append(keys, k)
			return true
		})
	}
	if len(best) > 1 {
		slices.Sort(keys)
		keys = slices.Compact(keys)
	}
	return keys, true
}

// indexedKeys returns, in key order, the keys in [start, hi) that a list
// of the mirror as it was before the record since of st's log (st.log.end
// for st's own mirror) must read for a filter that passes only objects
// with a term of each set, and ok; ok is false when st has no index or no
// set was given. An object that had the terms then either still has them
// (it has not changed since) and is in st's index, or changed after, and
// then its key is in a record from since on: the keys are the union of
// the two, a superset the filter narrows.
func indexedKeys(st *state, since int64, sets [][]string, start, hi string) ([]string, bool) {
	keys, ok := candidates(st.index, sets, start, hi)
	if !ok || since >= st.log.end {
		return keys, ok
	}
	for seq := since; seq < st.log.end; seq++ {
		if k := st.log.at(seq).key(); k >= start && (hi == "" || k < hi) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys), true
}
