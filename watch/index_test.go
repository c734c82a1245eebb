package watch_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/storage"
	"github.com/kapi-dev/kapi/storage/memory"
	"github.com/kapi-dev/kapi/watch"
)

// Values in the index tests are comma-separated terms.
func valueTerms(kv *storage.KeyValue) []string {
	if len(kv.Value) == 0 {
		return nil
	}
	return strings.Split(string(kv.Value), ",")
}

// hasAll is the filter of a selector that requires one term of each set.
func hasAll(sets [][]string) func(*watch.Entry) bool {
	return func(e *watch.Entry) bool {
		have := valueTerms(e.KV)
		for _, set := range sets {
			if !slices.ContainsFunc(set, func(t string) bool { return slices.Contains(have, t) }) {
				return false
			}
		}
		return true
	}
}

// TestIndexedListsMatchScans checks that a list read through the index
// returns what a scan of every object with the same filter returns, pages
// and Remaining included, after objects gain, change and lose terms before
// and after the cache's first list.
func TestIndexedListsMatchScans(t *testing.T) {
	s := newStore(t, memory.Options{})
	rng := rand.New(rand.NewPCG(1, 2))
	pool := []string{"c=red", "c=blue", "s=1", "s=2", "z=only"}
	keyOf := func(i int) string { return fmt.Sprintf("%s%s/w%03d", prefix, []string{"a", "b"}[i%2], i) }
	live := map[int]bool{}
	step := func() {
		i := rng.IntN(40)
		if live[i] && rng.IntN(4) == 0 {
			del(t, s, keyOf(i))
			delete(live, i)
			return
		}
		var terms []string
		for _, p := range pool[:4] {
			if rng.IntN(2) == 0 {
				terms = append(terms, p)
			}
		}
		if i == 7 {
			terms = append(terms, "z=only")
		}
		put(t, s, keyOf(i), strings.Join(terms, ","))
		live[i] = true
	}
	for range 100 {
		step()
	}
	c := newCache(t, s, watch.Options{Index: valueTerms})
	ctx := context.Background()
	selectors := [][][]string{
		{{"c=red"}},
		{{"c=red", "c=blue"}},
		{{"c=blue"}, {"s=1"}},
		{{"s=2"}, {"c=red", "c=blue"}},
		{{"z=only"}},
		{{"missing"}},
	}
	for round := range 4 {
		for range 150 {
			step()
		}
		if _, err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		for _, sel := range selectors {
			for _, p := range []string{prefix, prefix + "a/"} {
				for _, limit := range []int64{0, 1, 3} {
					opts := watch.ListOptions{List: resourceversion.List{Semantics: resourceversion.Any, Limit: limit}, Filter: hasAll(sel)}
					scan, err := c.List(ctx, p, opts)
					if err != nil {
						t.Fatal(err)
					}
					opts.Index = sel
					indexed, err := c.List(ctx, p, opts)
					if err != nil {
						t.Fatal(err)
					}
					if got, want := keysOf(indexed), keysOf(scan); !slices.Equal(got, want) || indexed.Remaining != scan.Remaining || indexed.Revision != scan.Revision {
						t.Errorf("round %d, %v under %s, limit %d: indexed %v (remaining %d), scan %v (remaining %d)",
							round, sel, p, limit, got, indexed.Remaining, want, scan.Remaining)
					}
				}
			}
		}
	}
}

func keysOf(r watch.ListResult) []string {
	out := make([]string, len(r.Entries))
	for i, e := range r.Entries {
		out[i] = e.KV.Key
	}
	return out
}

// TestIndexConcurrentReads lists through the index while objects change
// their terms: under -race this shows that a published index is never
// changed in place, and every listed object has the term.
func TestIndexConcurrentReads(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{Index: valueTerms})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		sel := [][]string{{"c=red"}}
		for ctx.Err() == nil {
			res, err := c.List(ctx, prefix, watch.ListOptions{List: resourceversion.List{Semantics: resourceversion.Any},
				Filter: hasAll(sel), Index: sel})
			if err != nil {
				return
			}
			for _, e := range res.Entries {
				if !hasAll(sel)(e) {
					t.Errorf("listed %s = %s", e.KV.Key, e.KV.Value)
				}
			}
		}
	}()
	for i := range 300 {
		put(t, s, key(i%20), []string{"c=red,s=1", "c=blue", "c=red"}[i%3])
	}
	cancel()
	<-done
}

// TestIndexedPastListsMatchScans checks that lists of past states (Exact
// at a revision later writes replaced, and the continuations of their
// pages) read through the index return what a scan of that state returns:
// the objects that had the terms then, whether they kept them, changed or
// were deleted since.
func TestIndexedPastListsMatchScans(t *testing.T) {
	s := newStore(t, memory.Options{})
	c := newCache(t, s, watch.Options{Index: valueTerms})
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	pool := []string{"c=red", "c=blue", "s=1", "s=2"}
	var revs []int64
	live := map[string]bool{}
	for i := range 400 {
		k := key(rng.IntN(30))
		if i%5 == 4 {
			if live[k] {
				del(t, s, k)
				delete(live, k)
			}
			continue
		}
		live[k] = true
		var terms []string
		for _, p := range pool {
			if rng.IntN(2) == 0 {
				terms = append(terms, p)
			}
		}
		revs = append(revs, put(t, s, k, strings.Join(terms, ",")))
	}
	if _, err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	selectors := [][][]string{{{"c=red"}}, {{"c=blue"}, {"s=1"}}, {{"s=2"}, {"c=red", "c=blue"}}, {{"missing"}}}
	for _, rev := range everyNth(revs, 37) {
		for _, sel := range selectors {
			for _, limit := range []int64{0, 2} {
				scan := pages(t, c, sel, nil, rev, limit)
				indexed := pages(t, c, sel, sel, rev, limit)
				if !slices.Equal(indexed, scan) {
					t.Errorf("at %d, %v, limit %d: indexed %v, scan %v", rev, sel, limit, indexed, scan)
				}
			}
		}
	}
}

// pages lists the prefix at rev in pages of limit, following the
// continuations, and returns each page's keys and remaining count.
func pages(t *testing.T, c *watch.Cache, sel, index [][]string, rev, limit int64) []string {
	t.Helper()
	opts := watch.ListOptions{List: resourceversion.List{Semantics: resourceversion.Exact, Revision: rev, Limit: limit},
		Filter: hasAll(sel), Index: index}
	var out []string
	for {
		res, err := c.List(context.Background(), prefix, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Revision != rev {
			t.Fatalf("listed at %d, want %d", res.Revision, rev)
		}
		out = append(out, fmt.Sprint(keysOf(res), res.Remaining))
		if res.Remaining == 0 {
			return out
		}
		last := res.Entries[len(res.Entries)-1].KV.Key
		tok := resourceversion.ContinueAfter(rev, strings.TrimPrefix(last, prefix))
		opts.List = resourceversion.List{Semantics: resourceversion.Continuation, Revision: rev, Limit: limit, Continue: &tok}
	}
}

func everyNth(revs []int64, n int) []int64 {
	var out []int64
	for i := 0; i < len(revs); i += n {
		out = append(out, revs[i])
	}
	return out
}
