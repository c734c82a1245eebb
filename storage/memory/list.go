package memory

import (
	"context"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/storage"
)

// keyRange is the set of keys a List covers: from lo (exclusive or not) to
// hi (exclusive; "" means no end).
type keyRange struct {
	lo        string
	exclusive bool
	hi        string
}

func newKeyRange(prefix, after string) keyRange {
	r := keyRange{lo: prefix, hi: prefixEnd(prefix)}
	if after >= prefix && after != "" {
		r.lo, r.exclusive = after, true
	}
	return r
}

func (r keyRange) contains(key string) bool {
	if key < r.lo || r.exclusive && key == r.lo {
		return false
	}
	return r.hi == "" || key < r.hi
}

// prefixEnd returns the smallest key greater than every key with the
// prefix, or "" when there is none.
func prefixEnd(prefix string) string {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}

// List implements [storage.Interface]. The returned KeyValues are shared:
// callers must not modify them.
func (s *Store) List(ctx context.Context, prefix string, opts storage.ListOptions) (storage.ListResponse, error) {
	if err := s.check(ctx); err != nil {
		return storage.ListResponse{}, err
	}
	st := s.cur.Load()
	rev, err := st.readRevision(opts.Revision)
	if err != nil {
		return storage.ListResponse{}, err
	}
	kr := newKeyRange(prefix, opts.After)
	var kvs []*storage.KeyValue
	var total int
	if rev == st.rev {
		kvs, total = st.listCurrent(kr, opts.Limit)
	} else {
		kvs, total = st.listAt(kr, opts.Limit, rev)
	}
	return storage.ListResponse{KVs: kvs, Remaining: int64(total - len(kvs)), Revision: rev}, nil
}

// listCurrent returns the first limit keys of kr at st.rev and how many
// keys kr holds.
func (st *state) listCurrent(kr keyRange, limit int64) ([]*storage.KeyValue, int) {
	total := tree.CountRange(st.root, kr.lo, kr.exclusive, kr.hi)
	n := total
	if limit > 0 && limit < int64(n) {
		n = int(limit)
	}
	if n == 0 {
		return nil, total
	}
	// The first n keys from kr.lo are in kr: total counts them.
	return tree.AppendFrom(make([]*storage.KeyValue, 0, n), st.root, kr.lo, kr.exclusive, n), total
}

// change describes a key of the range that changed after the revision a
// list reads at.
type change struct {
	key     string
	then    *storage.KeyValue // value at the read revision, nil if absent
	present bool              // whether the key exists now
}

// changes returns the keys of kr written after rev, in key order.
func (st *state) changes(kr keyRange, rev int64) []change {
	var out []change
	index := make(map[string]int)
	for r := rev + 1; r <= st.rev; r++ {
		ev := st.hist.at(r)
		if !kr.contains(ev.KV.Key) {
			continue
		}
		i, ok := index[ev.KV.Key]
		if !ok {
			i = len(out)
			index[ev.KV.Key] = i
			out = append(out, change{key: ev.KV.Key, then: ev.PrevKV})
		}
		out[i].present = ev.Type == storage.EventPut
	}
	slices.SortFunc(out, func(a, b change) int { return strings.Compare(a.key, b.key) })
	return out
}

// listAt returns the first limit keys of kr as of rev, an old retained
// revision, and how many keys kr held then. It walks the current tree and
// undoes the changes made after rev.
func (st *state) listAt(kr keyRange, limit int64, rev int64) ([]*storage.KeyValue, int) {
	chs := st.changes(kr, rev)
	total := tree.CountRange(st.root, kr.lo, kr.exclusive, kr.hi)
	for _, c := range chs {
		if c.present {
			total--
		}
		if c.then != nil {
			total++
		}
	}
	n := total
	if limit > 0 && limit < int64(n) {
		n = int(limit)
	}
	if n == 0 {
		return nil, total
	}
	kvs := make([]*storage.KeyValue, 0, n)
	j := 0
	// flush emits the old values of the changed keys before key (all of
	// them when all is set).
	flush := func(key string, all bool) {
		for ; j < len(chs) && len(kvs) < n && (all || chs[j].key < key); j++ {
			if chs[j].then != nil {
				kvs = append(kvs, chs[j].then)
			}
		}
	}
	tree.Ascend(st.root, kr.lo, kr.exclusive, func(kv *storage.KeyValue) bool {
		if kr.hi != "" && kv.Key >= kr.hi {
			return false
		}
		flush(kv.Key, false)
		if len(kvs) == n {
			return false
		}
		if j < len(chs) && chs[j].key == kv.Key {
			if chs[j].then != nil {
				kvs = append(kvs, chs[j].then)
			}
			j++
		} else {
			kvs = append(kvs, kv)
		}
		return len(kvs) < n
	})
	flush("", true)
	return kvs, total
}
