package watch

import (
	"context"
	"errors"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/storage"
)

// stale reports whether a wait for freshness ended because the cache did
// not reach the revision in time (the 504 of tooLarge), the failure a
// consistent read falls back to the store on. A cache that has not loaded
// yet (429) or has stopped does not fall back.
func stale(err error) bool {
	if err == nil { // first: se below is on the heap, errors.As takes its address
		return false
	}
	var se *status.Error
	if !errors.As(err, &se) || se.Status.Details == nil {
		return false
	}
	for _, c := range se.Status.Details.Causes {
		if c.Type == meta.CauseTypeResourceVersionTooLarge {
			return true
		}
	}
	return false
}

// getStore reads key from the store at its current revision, for a
// consistent get the cache could not serve in time.
func (c *Cache) getStore(ctx context.Context, key string) (GetResult, error) {
	g, err := c.store.Get(ctx, key, storage.GetOptions{})
	if err != nil {
		return GetResult{}, err
	}
	res := GetResult{Revision: g.Revision}
	if g.KV != nil {
		res.Entry = c.entry(g.KV)
	}
	return res, nil
}

// consistentRead reports the end of a consistent read to
// [Options.ConsistentRead].
func (c *Cache) consistentRead(fallback bool, err error) {
	if f := c.opts.ConsistentRead; f != nil {
		f(fallback, err == nil)
	}
}
