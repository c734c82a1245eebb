package apiserver

import (
	"fmt"
	"sort"

	"github.com/kapi-dev/kapi/apiserver/internal/handlers"
	"github.com/kapi-dev/kapi/schema"
)

// Kinds can be added, replaced and removed while the server serves, as
// kube-apiserver serves CustomResourceDefinitions: Install, Uninstall
// and CheckKind. Registration (Register) stays what a host does before
// serving; Install is for kinds that come and go at run time, and is
// safe to call concurrently with requests.
//
// Requests see the server's resources through one value published
// whole (the discovery and OpenAPI documents with the routing table): a
// request routed before an Install completes is served by what it was
// routed to, and every request after it sees the new kind everywhere.

// Install is [Server.Install].
func (s *catalog) Install(k Kind) error {
	b, err := s.build(k)
	if err != nil {
		return fmt.Errorf("apiserver: kind %s: %w", k.Kind, err)
	}
	for _, h := range b.handlers {
		h.Live = true
	}
	s.mu.Lock()
	for _, h := range b.handlers {
		if err := s.conflicts(&h.Resource.Kind, true, false); err != nil {
			s.mu.Unlock()
			b.stop()
			return fmt.Errorf("apiserver: kind %s: %w", k.Kind, err)
		}
	}
	var old []*handlers.Handler
	for key, h := range s.resources {
		if key.group == b.stor.Kind.Group && key.resource == b.stor.Kind.Resource {
			old = append(old, h)
			delete(s.resources, key)
		}
	}
	for _, h := range b.handlers {
		s.insert(h)
	}
	if s.sealed {
		s.publish()
	}
	s.mu.Unlock()
	for _, h := range old {
		h.Resource.Cache.Stop()
	}
	return nil
}

// Uninstall is [Server.Uninstall].
func (s *catalog) Uninstall(group, resource string) error {
	s.mu.Lock()
	var gone []*handlers.Handler
	for key, h := range s.resources {
		if key.group != group || key.resource != resource {
			continue
		}
		if !h.Live {
			s.mu.Unlock()
			return fmt.Errorf("apiserver: resource %s.%s was registered, not installed: it cannot be uninstalled", resource, group)
		}
		gone = append(gone, h)
	}
	if len(gone) == 0 {
		s.mu.Unlock()
		return fmt.Errorf("apiserver: resource %s.%s is not served", resource, group)
	}
	for _, h := range gone {
		delete(s.resources, resourceKey{group, h.Resource.Kind.Version, resource})
	}
	s.dropEmptyGroup(group)
	if s.sealed {
		s.publish()
	}
	s.mu.Unlock()
	for _, h := range gone {
		h.Resource.Cache.Stop()
	}
	return nil
}

// dropEmptyGroup forgets a group none of the resources is in; s.mu is
// held.
func (s *catalog) dropEmptyGroup(group string) {
	for key := range s.resources {
		if key.group == group {
			return
		}
	}
	if i := indexOf(s.groups, group); i >= 0 {
		s.groups = append(s.groups[:i:i], s.groups[i+1:]...)
	}
}

// CheckKind is [Server.CheckKind].
func (s *catalog) CheckKind(k Kind) error {
	kinds, err := s.checkVersions(k)
	if err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for i := range kinds {
		if err := s.conflicts(&kinds[i], true, true); err != nil {
			return err
		}
	}
	return nil
}

// RuleEngine is [Server.RuleEngine].
func (s *server) RuleEngine() schema.RuleEngine { return s.opts.RuleEngine }

// Served is [Server.Served].
func (s *catalog) Served() []ServedResource {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]ServedResource, 0, len(s.resources))
	for key, h := range s.resources {
		out = append(out, ServedResource{Group: key.group, Version: key.version, Resource: key.resource, Kind: h.Resource.Kind.Kind, Installed: h.Live})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Resource != b.Resource {
			return a.Resource < b.Resource
		}
		return a.Version < b.Version
	})
	return out
}

// ServedResource names one served resource (see [Server.Served]).
type ServedResource struct {
	Group, Version, Resource, Kind string
	// Installed is set for a kind added by Install.
	Installed bool
}
