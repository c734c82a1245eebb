package watch

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/storage"
)

// GetResult is the result of [Cache.Get].
type GetResult struct {
	// Entry is the object, nil when the key does not exist.
	Entry *Entry
	// Revision is the revision the read was served at.
	Revision int64
}

// ListOptions tunes [Cache.List].
type ListOptions struct {
	// List is the parsed request: its semantics and revision, its limit
	// and, for a continuation, its token. A token's StartKey is relative
	// to the prefix passed to List.
	resourceversion.List
	// Filter, when set, keeps only the entries it returns true for (the
	// caller's label and field selectors). With a limit, a page holds up
	// to Limit entries that pass.
	Filter func(*Entry) bool
	// Index, with a Filter, lets a list read only the objects the cache's
	// index ([Options.Index]) has under some terms: every entry the filter
	// passes has at least one term of each set. The list then looks up the
	// objects of the set with the fewest, and the filter still decides. A
	// list of a past state the cache still holds (Exact, a continuation)
	// also looks up the objects changed since; one the store serves
	// ignores it.
	Index [][]string
}

// ListResult is the result of [Cache.List].
type ListResult struct {
	// Entries are the objects of the page in key order. They are shared:
	// see [Entry].
	Entries []*Entry
	// Revision is the revision the list was served at: the one to put in
	// the list's resourceVersion and in its continue token.
	Revision int64
	// Remaining is the number of keys under the prefix after the last
	// entry, counted before filtering. It is positive only when the page
	// is full (Limit entries): the server then owes a continue token,
	// resourceversion.ContinueAfter(Revision, lastKey minus prefix), and,
	// without a filter, remainingItemCount = Remaining.
	Remaining int64
}

// Get reads one key as opts asks:
//
//   - MostRecent (resourceVersion unset): a consistent read. Get asks the
//     store for its current revision and waits until the cache has
//     reached it, then reads the cache. When the cache has not caught up
//     within [Options.FreshnessTimeout] (a write flood can hold it back),
//     Get reads the key from the store at its current revision instead,
//     as kube-apiserver falls back to etcd, rather than failing.
//   - Any ("0"): the cache as it is, once its first list is loaded.
//   - NotOlderThan N: waits until the cache has reached N.
//
// Other waits end after [Options.FreshnessTimeout] with the 504 of
// resourceversion.TooLargeResourceVersion; every wait ends with a 429
// while the cache has not loaded yet. A missing key is not an error: the
// result's Entry is nil, and the server answers 404.
func (c *Cache) Get(ctx context.Context, key string, opts resourceversion.Get) (GetResult, error) {
	if err := c.covers(key); err != nil {
		return GetResult{}, err
	}
	st, err := c.fresh(ctx, opts.Semantics, opts.Revision)
	if opts.Semantics == resourceversion.MostRecent {
		if stale(err) {
			res, err := c.getStore(ctx, key)
			c.consistentRead(true, err)
			return res, err
		}
		c.consistentRead(false, err)
	}
	if err != nil {
		return GetResult{}, err
	}
	e, _ := tree.Get(st.root, key)
	return GetResult{Entry: e, Revision: st.rev}, nil
}

// List reads the keys under prefix as opts asks. MostRecent, Any and
// NotOlderThan are served from the current state after waiting as [Cache.Get]
// does. Exact N and a continuation at N are served from the snapshot of
// the state at N when the cache still has it (see [Options.SnapshotTTL]),
// else from the store's List at N, decoding on the way; when the store
// has compacted N the error is the 410 kube-apiserver sends (with a fresh
// continue token for a continuation). A continuation whose token asks for
// the current revision (-1) is a consistent read. A consistent read that
// the cache cannot serve within [Options.FreshnessTimeout] is read from
// the store at its current revision, as [Cache.Get] does. Paging follows
// storage.List: up to Limit entries after the token's start key, with the
// count of keys remaining after the page.
func (c *Cache) List(ctx context.Context, prefix string, opts ListOptions) (ListResult, error) {
	if err := c.covers(prefix); err != nil {
		return ListResult{}, err
	}
	lo, hi := keyRange(prefix)
	start, sem, rev := lo, opts.Semantics, opts.Revision
	if sem == resourceversion.Continuation {
		if opts.Continue == nil {
			return ListResult{}, errors.New("watch: continuation without a token")
		}
		if k := prefix + opts.Continue.StartKey; k > start {
			start = k
		}
		sem = resourceversion.Exact
	}
	if sem == resourceversion.Exact && rev <= 0 { // the current revision
		sem = resourceversion.MostRecent
	}
	st, err := c.fresh(ctx, sem, rev)
	if sem == resourceversion.MostRecent {
		if stale(err) {
			res, err := c.listStore(ctx, prefix, 0, start, opts)
			c.consistentRead(true, err)
			return res, err
		}
		c.consistentRead(false, err)
	}
	if err != nil {
		return ListResult{}, err
	}
	root, since := st.root, st.log.end
	if sem != resourceversion.Exact || rev >= st.rev {
		rev = st.rev
	} else if root, since = c.snapshotAt(st, rev); root == nil {
		return c.listStore(ctx, prefix, rev, start, opts)
	}
	if opts.Filter != nil {
		if keys, ok := indexedKeys(st, since, opts.Index, start, hi); ok {
			return listKeys(root, rev, keys, hi, opts.Limit, opts.Filter), nil
		}
	}
	return listTree(root, rev, start, hi, opts.Limit, opts.Filter), nil
}

// listKeys reads a page of the objects at keys (sorted, in [start, hi))
// that pass filter: what listTree reads when keys holds every key in
// range that the filter can pass.
func listKeys(root *node, rev int64, keys []string, hi string, limit int64, filter func(*Entry) bool) ListResult {
	res := ListResult{Revision: rev, Entries: make([]*Entry, 0, len(keys))}
	for _, k := range keys {
		e, ok := tree.Get(root, k)
		if !ok || !filter(e) {
			continue
		}
		res.Entries = append(res.Entries, e)
		if limit > 0 && int64(len(res.Entries)) == limit {
			res.Remaining = int64(tree.CountRange(root, k, true, hi))
			break
		}
	}
	return res
}

// snapshotAt returns the mirror at rev (< st.rev), or nil when it is
// gone: before the window, or replaced more than SnapshotTTL ago; and the
// sequence number of the first record of st's log after rev.
func (c *Cache) snapshotAt(st *state, rev int64) (*node, int64) {
	if rev < st.base.rev {
		return nil, 0
	}
	l := &st.log
	seq := l.search(rev)
	if seq == l.end { // nothing changed after rev
		return st.root, seq
	}
	now := c.now()
	if c.opts.SnapshotTTL <= 0 || l.at(seq).at < now-int64(c.opts.SnapshotTTL) {
		return nil, 0
	}
	return c.snaps.get(rev, now, func() *node { return c.rewind(st, seq) }), seq
}

// listTree reads a page of the keys in [start, hi) of root.
func listTree(root *node, rev int64, start, hi string, limit int64, filter func(*Entry) bool) ListResult {
	res := ListResult{Revision: rev}
	total := int64(tree.CountRange(root, start, false, hi))
	n := total
	if limit > 0 && limit < n {
		n = limit
	}
	if filter == nil { // the page is the first n keys from start
		res.Entries = tree.AppendFrom(make([]*Entry, 0, n), root, start, false, int(n))
		res.Remaining = total - n
		return res
	}
	res.Entries = make([]*Entry, 0, min(n, 256))
	var last string
	tree.Ascend(root, start, false, func(e *Entry) bool {
		if hi != "" && e.KV.Key >= hi {
			return false
		}
		if !filter(e) {
			return true
		}
		res.Entries = append(res.Entries, e)
		if limit > 0 && int64(len(res.Entries)) == limit {
			last = e.KV.Key
			return false
		}
		return true
	})
	if last != "" {
		res.Remaining = int64(tree.CountRange(root, last, true, hi))
	}
	return res
}

// listStore reads a page at rev from the store, for revisions the cache no
// longer has, or at the store's current revision when rev is 0 (the
// revision its first read returns, kept for the rest of the page). start
// is inclusive, as in a continue token.
func (c *Cache) listStore(ctx context.Context, prefix string, rev int64, start string, opts ListOptions) (ListResult, error) {
	res := ListResult{Revision: rev}
	lo, hi := keyRange(prefix)
	var after string
	var first *storage.KeyValue // start itself, when it must be read apart
	if start > lo {
		after = strings.TrimSuffix(start, "\x00")
		if after == start { // keys >= start: start, then those after it
			g, err := c.store.Get(ctx, start, storage.GetOptions{Revision: rev})
			if err != nil {
				return ListResult{}, storeError(err, opts.List)
			}
			first, rev, res.Revision = g.KV, g.Revision, g.Revision
		}
	}
	sopts := storage.ListOptions{Revision: rev, After: after, Limit: opts.Limit}
	for {
		resp, err := c.store.List(ctx, prefix, sopts)
		if err != nil {
			return ListResult{}, storeError(err, opts.List)
		}
		if sopts.Revision == 0 {
			sopts.Revision, res.Revision = resp.Revision, resp.Revision
		}
		kvs := resp.KVs
		if first != nil {
			kvs = append([]*storage.KeyValue{first}, kvs...)
			first = nil
		}
		for i, kv := range kvs {
			if hi != "" && kv.Key >= hi {
				return res, nil
			}
			e := c.entry(kv)
			if opts.Filter != nil && !opts.Filter(e) {
				continue
			}
			res.Entries = append(res.Entries, e)
			if opts.Limit > 0 && int64(len(res.Entries)) == opts.Limit {
				res.Remaining = resp.Remaining + int64(len(kvs)-i-1)
				return res, nil
			}
		}
		if resp.Remaining == 0 || len(resp.KVs) == 0 {
			return res, nil
		}
		sopts.After = resp.KVs[len(resp.KVs)-1].Key
	}
}

// storeError maps a storage failure of a read at an old revision.
func storeError(err error, opts resourceversion.List) error {
	var se *storage.Error
	switch {
	case storage.IsCompacted(err):
		return listExpired(opts)
	case storage.IsFutureRevision(err) && errors.As(err, &se):
		return tooLarge(se.Revision, opts.Revision)
	}
	return err
}

// covers checks that a key or prefix is under the cache's prefix.
func (c *Cache) covers(key string) error {
	if !strings.HasPrefix(key, c.prefix) {
		return fmt.Errorf("watch: %q is not under the cache's prefix %q", key, c.prefix)
	}
	return nil
}

// keyRange returns the keys a prefix selects, [lo, hi) with "" for no
// end: the keys that start with it when it ends in "/", else that one key.
func keyRange(prefix string) (lo, hi string) {
	if !strings.HasSuffix(prefix, "/") {
		return prefix, prefix + "\x00"
	}
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return prefix, string(b[:i+1])
		}
	}
	return prefix, ""
}
