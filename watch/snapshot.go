package watch

import "sync"

// Past states are not kept per change: a change's record holds the entry
// it replaced (which filtered watchers need anyway), and that is enough to
// rebuild the mirror at any revision in the window by undoing the later
// changes on the current tree. Rebuilding copies each touched node once
// (one fresh generation for the whole undo), so it costs O(k log n) for k
// changes since the revision and at most one copy of the tree. The few
// rebuilt trees that paged lists come back for are kept in a small
// most-recently-used set, so a continuation does not rebuild per page.

// maxSnapshots bounds the rebuilt trees kept for continuations.
const maxSnapshots = 4

type snapshot struct {
	rev  int64 // the revision it was asked for
	root *node
	used int64 // last use, in Clock Unix nanoseconds
}

// snapshots is the set of rebuilt trees, most recently used first.
type snapshots struct {
	mu   sync.Mutex
	list []snapshot
}

// get returns the kept tree for rev, or builds it with build and keeps it.
// Concurrent callers for one revision wait for a single build.
func (s *snapshots) get(rev, now int64, build func() *node) *node {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, sn := range s.list {
		if sn.rev == rev {
			sn.used = now
			copy(s.list[1:i+1], s.list[:i])
			s.list[0] = sn
			return sn.root
		}
	}
	sn := snapshot{rev: rev, root: build(), used: now}
	if len(s.list) < maxSnapshots {
		s.list = append(s.list, snapshot{})
	}
	copy(s.list[1:], s.list[:len(s.list)-1])
	s.list[0] = sn
	return sn.root
}

// expire drops the trees unused since cutoff.
func (s *snapshots) expire(cutoff int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := s.list[:0]
	for _, sn := range s.list {
		if sn.used >= cutoff {
			keep = append(keep, sn)
		}
	}
	clear(s.list[len(keep):])
	s.list = keep
}

// len returns how many rebuilt trees are kept.
func (s *snapshots) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.list)
}

// rewind returns the mirror as it was right before the record seq of st's
// log: st's tree with that record and every later one undone.
func (c *Cache) rewind(st *state, seq int64) *node {
	gen := c.nextGen()
	root := st.root
	for i := st.log.end - 1; i >= seq; i-- {
		r := st.log.at(i)
		if r.prev != nil {
			root, _, _ = tree.Put(root, r.prev, gen)
		} else {
			root, _, _ = tree.Delete(root, r.entry.KV.Key, gen)
		}
	}
	return root
}
