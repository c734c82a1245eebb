package apiserver

import (
	"context"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/watch"
)

// Cached reads the objects of one registered resource from its watch
// cache, without a store round trip: for authorizers and controllers that
// keep an index of a few objects and rebuild it when they change.
type Cached struct {
	r *resource
}

// Cached is [Server.Cached].
func (s *catalog) Cached(group, resource string) (Cached, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for k, h := range s.resources {
		if k.group == group && k.resource == resource {
			return Cached{r: h.r}, true
		}
	}
	return Cached{}, false
}

// Revision is the revision the cache has reached: while it is unchanged,
// so are the objects. It is 0 until the cache has loaded.
func (c Cached) Revision() int64 { return c.r.cache.Revision() }

// List returns every object as the cache holds it now (waiting for the
// cache's first load), and the revision it read at. The objects are
// shared: callers must not change them.
func (c Cached) List(ctx context.Context) ([]meta.Object, int64, error) {
	res, err := c.r.cache.List(ctx, c.r.prefix, watch.ListOptions{List: resourceversion.List{Semantics: resourceversion.Any}})
	if err != nil {
		return nil, 0, storageError(err)
	}
	out := make([]meta.Object, 0, len(res.Entries))
	for _, e := range res.Entries {
		obj, err := object(e)
		if err != nil {
			return nil, 0, status.InternalError(err)
		}
		out = append(out, obj)
	}
	return out, res.Revision, nil
}

// Sync waits until the cache holds every change the store had made when
// Sync was called (a consistent read of the store's revision).
func (c Cached) Sync(ctx context.Context) error {
	if _, err := c.r.cache.Sync(ctx); err != nil {
		return storageError(err)
	}
	return nil
}
