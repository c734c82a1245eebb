package watch

import (
	"testing"
	"unsafe"
)

// Tests of unexported helpers. The mirror's B-tree is tested in
// internal/btree.

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

// TestSnapshots checks the set of rebuilt trees: one build per revision
// while it is kept, at most maxSnapshots kept, least recently used dropped
// first, and expiry by last use.
func TestSnapshots(t *testing.T) {
	var s snapshots
	builds := 0
	get := func(rev, now int64) *node {
		return s.get(rev, now, func() *node { builds++; return &node{} })
	}
	a := get(1, 0)
	if get(1, 1) != a || builds != 1 {
		t.Fatalf("%d builds for one revision", builds)
	}
	for rev := int64(2); rev <= maxSnapshots; rev++ {
		get(rev, rev)
	}
	get(1, 10)              // 1 is now the most recently used
	get(maxSnapshots+1, 11) // drops 2, the least recently used
	if s.len() != maxSnapshots || builds != maxSnapshots+1 {
		t.Fatalf("%d kept, %d builds", s.len(), builds)
	}
	if get(1, 12) != a || builds != maxSnapshots+1 {
		t.Fatal("revision 1 was rebuilt")
	}
	get(2, 13)
	if builds != maxSnapshots+2 {
		t.Fatal("revision 2 was kept past the bound")
	}
	s.expire(12)
	if s.len() != 2 { // used at 12 and 13
		t.Fatalf("%d kept after expiry", s.len())
	}
}

// TestRecordIsSmall: the window keeps a record per change, so a record
// fits the allocator's 48-byte class, and a change's frames are made
// only when a watcher asks for one, then shared until released.
func TestRecordIsSmall(t *testing.T) {
	if size := unsafe.Sizeof(record{}); size > 48 {
		t.Errorf("a record takes %d bytes, want at most 48", size)
	}
	ctr := new(Counters)
	src := newFrameSource(ctr, new(frameBook))
	rec := &record{rev: 2}
	if rec.frames.Load() != nil {
		t.Fatal("a new record has frames")
	}
	encode := func() ([]byte, error) { return []byte("x"), nil }
	a, _ := rec.encoded(src, Added, "m", encode)
	b, _ := rec.encoded(src, Added, "m", encode)
	if &a[0] != &b[0] || ctr.Encodings() != 1 {
		t.Errorf("frames not shared: %d encodings", ctr.Encodings())
	}
	rec.releaseFrames(src)
	c, _ := rec.encoded(src, Added, "m", encode)
	d, _ := rec.encoded(src, Added, "m", encode)
	if &c[0] == &d[0] || ctr.Encodings() != 3 {
		t.Errorf("frames kept after release: %d encodings", ctr.Encodings())
	}
	never := &record{rev: 3}
	never.releaseFrames(src)
	if e, _ := never.encoded(src, Added, "m", encode); string(e) != "x" || never.frames.Load() != &src.done {
		t.Errorf("a record released before any frame: %q, frames %p", e, never.frames.Load())
	}
}
