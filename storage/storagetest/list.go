package storagetest

import (
	"fmt"
	"math/rand"
	"slices"

	"github.com/kapi-dev/kapi/storage"
)

func testListOrderAndPrefix(h *harness) {
	keys := []string{"/a/2", "/ab/1", "/a/10", "/b/1", "/a", "/a/sub/x", "/a/1", "/aa/1", "/a/"}
	for _, k := range keys {
		h.create(k, "v"+k)
	}
	rev := h.revision()
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"/a/", []string{"/a/", "/a/1", "/a/10", "/a/2", "/a/sub/x"}},
		{"/ab/", []string{"/ab/1"}},
		{"/a/sub/", []string{"/a/sub/x"}},
		{"/c/", nil},
	} {
		resp := h.list(tc.prefix, storage.ListOptions{})
		if got := keysOf(resp.KVs); !slices.Equal(got, tc.want) {
			h.Fatalf("List(%q) = %q, want %q", tc.prefix, got, tc.want)
		}
		if resp.Remaining != 0 || resp.Revision != rev {
			h.Fatalf("List(%q): remaining %d at %d, want 0 at %d", tc.prefix, resp.Remaining, resp.Revision, rev)
		}
		for _, kv := range resp.KVs {
			h.wantKV("listed value", kv, h.get(kv.Key, 0).KV)
		}
	}
}

func testListPagination(h *harness) {
	var want []string
	for _, i := range rand.New(rand.NewSource(1)).Perm(10) {
		h.create(fmt.Sprintf("/p/%02d", i), "v")
	}
	for i := 0; i < 10; i++ {
		want = append(want, fmt.Sprintf("/p/%02d", i))
	}
	h.create("/o/1", "outside")
	h.create("/q/1", "outside")
	rev := h.revision()

	// Change the prefix between pages: pages read at the first page's
	// revision must not see it.
	first := h.list("/p/", storage.ListOptions{Limit: 3})
	h.mustDelete("/p/05", h.get("/p/05", 0).KV.ModRevision)
	h.create("/p/055", "new")
	h.create("/p/99", "new")
	checkPages(h, "/p/", rev, 3, want, first)

	// The same pages read at the current revision see the change.
	now := []string{"/p/00", "/p/01", "/p/02", "/p/03", "/p/04", "/p/055", "/p/06", "/p/07", "/p/08", "/p/09", "/p/99"}
	checkPages(h, "/p/", 0, 4, now, storage.ListResponse{})

	for _, tc := range []struct {
		opts storage.ListOptions
		want []string
		left int64
	}{
		{storage.ListOptions{Limit: 100}, now, 0},
		{storage.ListOptions{After: "/p/09"}, []string{"/p/99"}, 0},
		{storage.ListOptions{After: "/p/99"}, nil, 0},
		{storage.ListOptions{After: "/p/0", Limit: 2}, []string{"/p/00", "/p/01"}, 9},
		{storage.ListOptions{After: "/p/05", Limit: 1}, []string{"/p/055"}, 5},
		{storage.ListOptions{After: "/z", Limit: 1}, nil, 0},
	} {
		resp := h.list("/p/", tc.opts)
		if got := keysOf(resp.KVs); !slices.Equal(got, tc.want) || resp.Remaining != tc.left {
			h.Fatalf("List(/p/, %+v) = %q remaining %d, want %q remaining %d", tc.opts, got, resp.Remaining, tc.want, tc.left)
		}
	}
}

// checkPages lists prefix page by page (limit keys each, at rev, 0 meaning
// the first page's revision) and checks the pages add up to want. When
// first has keys, it is taken as the first page.
func checkPages(h *harness, prefix string, rev int64, limit int64, want []string, first storage.ListResponse) {
	h.Helper()
	var got []string
	resp := first
	if len(resp.KVs) == 0 {
		resp = h.list(prefix, storage.ListOptions{Revision: rev, Limit: limit})
	}
	if rev == 0 {
		rev = resp.Revision
	}
	for page := 0; ; page++ {
		if resp.Revision != rev {
			h.Fatalf("page %d read at %d, want %d", page, resp.Revision, rev)
		}
		if int64(len(resp.KVs)) > limit {
			h.Fatalf("page %d has %d keys, limit %d", page, len(resp.KVs), limit)
		}
		got = append(got, keysOf(resp.KVs)...)
		if left := int64(len(want) - len(got)); resp.Remaining != left {
			h.Fatalf("page %d (%q): remaining %d, want %d", page, keysOf(resp.KVs), resp.Remaining, left)
		}
		if resp.Remaining == 0 || len(resp.KVs) == 0 {
			break
		}
		after := resp.KVs[len(resp.KVs)-1].Key
		resp = h.list(prefix, storage.ListOptions{Revision: rev, After: after, Limit: limit})
	}
	if !slices.Equal(got, want) {
		h.Fatalf("pages of %q at %d = %q, want %q", prefix, rev, got, want)
	}
}

func testGetAtRevision(h *harness) {
	before := h.revision()
	v1 := h.create("/w/a", "one")
	v2 := h.mustPut("/w/a", "two", v1.ModRevision)
	h.create("/w/b", "b")
	del := h.mustDelete("/w/a", v2.ModRevision)
	h.create("/w/c", "c")
	v3 := h.create("/w/a", "three")
	h.create("/w/d", "d")
	for _, tc := range []struct {
		rev  int64
		want *storage.KeyValue
	}{
		{before, nil},
		{v1.ModRevision, v1},
		{v2.ModRevision, v2},
		{v2.ModRevision + 1, v2},
		{del, nil},
		{del + 1, nil},
		{v3.ModRevision, v3},
		{0, v3},
	} {
		g := h.get("/w/a", tc.rev)
		h.wantKV(fmt.Sprintf("Get at %d", tc.rev), g.KV, tc.want)
		if tc.rev != 0 && g.Revision != tc.rev {
			h.Fatalf("Get at %d answered at %d", tc.rev, g.Revision)
		}
	}
	if g := h.get("/w/d", v3.ModRevision); g.KV != nil {
		h.Fatalf("Get before creation: %s", fmtKV(g.KV))
	}
}

func testListAtRevision(h *harness) {
	type snap struct {
		rev  int64
		kvs  []*storage.KeyValue
		desc string
	}
	var snaps []snap
	record := func(desc string) {
		resp := h.list("/l/", storage.ListOptions{})
		snaps = append(snaps, snap{h.revision(), resp.KVs, desc})
	}
	record("empty")
	a := h.create("/l/a", "a1")
	c := h.create("/l/c", "c1")
	record("a c")
	b := h.create("/l/b", "b1")
	h.create("/m/x", "outside")
	record("a b c")
	h.mustPut("/l/a", "a2", a.ModRevision)
	h.mustDelete("/l/c", c.ModRevision)
	record("a2 b")
	h.mustDelete("/l/b", b.ModRevision)
	h.create("/l/c", "c2")
	h.create("/l/0", "zero")
	record("0 a2 c2")
	for _, s := range snaps {
		resp := h.list("/l/", storage.ListOptions{Revision: s.rev})
		if len(resp.KVs) != len(s.kvs) || resp.Remaining != 0 || resp.Revision != s.rev {
			h.Fatalf("List at %d (%s) = %q remaining %d at %d", s.rev, s.desc, keysOf(resp.KVs), resp.Remaining, resp.Revision)
		}
		for i := range s.kvs {
			h.wantKV(fmt.Sprintf("List at %d (%s) item %d", s.rev, s.desc, i), resp.KVs[i], s.kvs[i])
		}
		for limit := int64(1); limit <= 3; limit++ {
			checkPages(h, "/l/", s.rev, limit, keysOf(s.kvs), storage.ListResponse{})
		}
	}
}

// testRandomHistory applies random writes and checks reads at every past
// revision against a model.
func testRandomHistory(h *harness) {
	rnd := rand.New(rand.NewSource(42))
	keys := []string{"/r/", "/r/a", "/r/b", "/r/b/c", "/r/c", "/r/d", "/r/e", "/r/f", "/r/g", "/r/h", "/r0", "/s/a"}
	cur := map[string]*storage.KeyValue{}
	revs := []int64{h.revision()}
	models := []map[string]*storage.KeyValue{{}}
	for i := 0; i < 120; i++ {
		key := keys[rnd.Intn(len(keys))]
		kv := cur[key]
		switch {
		case kv != nil && rnd.Intn(3) == 0:
			h.mustDelete(key, kv.ModRevision)
			delete(cur, key)
		case kv != nil:
			cur[key] = h.mustPut(key, fmt.Sprint(i), kv.ModRevision)
		default:
			cur[key] = h.create(key, fmt.Sprint(i))
		}
		revs = append(revs, h.revision())
		m := make(map[string]*storage.KeyValue, len(cur))
		for k, v := range cur {
			m[k] = v
		}
		models = append(models, m)
	}
	for i, rev := range revs {
		m := models[i]
		for _, key := range keys {
			h.wantKV(fmt.Sprintf("Get(%q) at %d", key, rev), h.get(key, rev).KV, m[key])
		}
		var want []string
		for k := range m {
			if len(k) >= 3 && k[:3] == "/r/" {
				want = append(want, k)
			}
		}
		slices.Sort(want)
		limit := int64(1 + rnd.Intn(4))
		if i == len(revs)-1 {
			rev = 0
		}
		checkPages(h, "/r/", rev, limit, want, storage.ListResponse{})
	}
}
