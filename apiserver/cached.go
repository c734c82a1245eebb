package apiserver

import (
	"context"
	"sort"

	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/resourceversion"
	"github.com/kapi-dev/kapi/status"
	"github.com/kapi-dev/kapi/watch"
)

// Cached reads the objects of one registered resource from its watch
// cache, without a store round trip: for authorizers and controllers that
// keep an index of a few objects and rebuild it when they change.
type Cached struct {
	r *registry.Resource
}

// Cached is [Server.Cached].
func (s *catalog) Cached(group, resource string) (Cached, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for k, h := range s.resources {
		if k.group == group && k.resource == resource {
			return Cached{r: h.Resource}, true
		}
	}
	return Cached{}, false
}

// Revision is the revision the cache has reached: while it is unchanged,
// so are the objects. It is 0 until the cache has loaded.
func (c Cached) Revision() int64 { return c.r.Cache.Revision() }

// Changes counts the changes of the objects the cache holds: it moves
// when one is created, changed or deleted (and when the cache lists the
// store again), not when only the revision moves. Compile what is read
// from the objects again only when it moved.
func (c Cached) Changes() uint64 { return c.r.Cache.Changes() }

// List returns every object as the cache holds it now (waiting for the
// cache's first load), and the revision it read at. The objects are
// shared: callers must not change them.
func (c Cached) List(ctx context.Context) ([]meta.Object, int64, error) {
	res, err := c.r.Cache.List(ctx, c.r.Prefix, watch.ListOptions{List: resourceversion.List{Semantics: resourceversion.Any}})
	if err != nil {
		return nil, 0, registry.StorageError(err)
	}
	out := make([]meta.Object, 0, len(res.Entries))
	for _, e := range res.Entries {
		obj, err := registry.Object(e)
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
	if _, err := c.r.Cache.Sync(ctx); err != nil {
		return registry.StorageError(err)
	}
	return nil
}

// StoredVersions is [Server.StoredVersions].
func (s *catalog) StoredVersions(ctx context.Context, group, resource string) (versions []string, ok bool, err error) {
	c, found := s.Cached(group, resource)
	if !found {
		return nil, false, nil
	}
	r := c.r.StorageVersion
	res, err := r.Cache.List(ctx, r.Prefix, watch.ListOptions{List: resourceversion.List{Semantics: resourceversion.MostRecent}})
	if err != nil {
		return nil, true, registry.StorageError(err)
	}
	seen := map[string]bool{r.Kind.Version: true}
	for _, e := range res.Entries {
		v, err := r.StoredVersion(e.KV.Value)
		if err != nil {
			return nil, true, status.InternalError(err)
		}
		seen[v] = true
	}
	for v := range seen {
		versions = append(versions, v)
	}
	sort.Strings(versions)
	return versions, true, nil
}
