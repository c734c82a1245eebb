package apiclient

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kapi-dev/kapi/meta"
)

// Resource is one served resource, as discovery describes it.
type Resource struct {
	Group, Version, Kind, Resource string
	Namespaced                     bool
	Verbs                          []string
	// Preferred is set when Version is its group's preferred version.
	Preferred bool
}

// APIVersion is the resource's group/version as objects carry it.
func (r Resource) APIVersion() string {
	return meta.GroupVersion{Group: r.Group, Version: r.Version}.String()
}

// Path is the path of the resource's collection in namespace ns ("" for
// all namespaces, or a cluster-scoped resource).
func (r Resource) Path(ns string) string {
	var b strings.Builder
	if r.Group == "" {
		b.WriteString("/api/" + r.Version)
	} else {
		b.WriteString("/apis/" + r.Group + "/" + r.Version)
	}
	if r.Namespaced && ns != "" {
		b.WriteString("/namespaces/" + ns)
	}
	b.WriteString("/" + r.Resource)
	return b.String()
}

// ObjectPath is the path of one object of the resource.
func (r Resource) ObjectPath(ns, name string) string { return r.Path(ns) + "/" + name }

// Can reports whether the resource serves every one of verbs.
func (r Resource) Can(verbs ...string) bool {
	for _, v := range verbs {
		if !slices.Contains(r.Verbs, v) {
			return false
		}
	}
	return true
}

// Resources lists the served resources (subresources left out) from the
// legacy discovery documents: /api, /apis and each group-version's list.
// A group-version whose list cannot be read is left out and named in a
// *DiscoveryError, returned with the resources of the others; a failure
// to read /api or /apis returns no resources.
func (c *Client) Resources(ctx context.Context) ([]Resource, error) {
	gvs, err := c.groupVersions(ctx)
	if err != nil {
		return nil, err
	}
	var out []Resource
	failed := map[string]error{}
	for _, gv := range gvs {
		var list struct {
			GroupVersion string
			Resources    []meta.APIResource
		}
		if err := c.Get(ctx, gv.path(), &list); err != nil {
			failed[gv.name] = err
			continue
		}
		v := ParseAPIVersion(list.GroupVersion)
		for _, r := range list.Resources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			out = append(out, Resource{Group: v.Group, Version: v.Version, Kind: r.Kind, Resource: r.Name,
				Namespaced: r.Namespaced, Verbs: r.Verbs, Preferred: gv.preferred})
		}
	}
	if len(failed) > 0 {
		return out, &DiscoveryError{Groups: failed}
	}
	return out, nil
}

// servedVersion is one group-version discovery lists.
type servedVersion struct {
	name      string // "group/version", or "v1" for the core group
	preferred bool
}

func (gv servedVersion) path() string {
	if strings.Contains(gv.name, "/") {
		return "/apis/" + gv.name
	}
	return "/api/" + gv.name
}

// groupVersions lists the served group-versions, each group's in the
// order discovery gives them.
func (c *Client) groupVersions(ctx context.Context) ([]servedVersion, error) {
	var core struct{ Versions []string }
	if err := c.Get(ctx, "/api", &core); err != nil {
		return nil, err
	}
	var gvs []servedVersion
	for i, v := range core.Versions {
		gvs = append(gvs, servedVersion{name: v, preferred: i == 0})
	}
	var groups struct {
		Groups []struct {
			Versions         []struct{ GroupVersion string }
			PreferredVersion struct{ GroupVersion string }
		}
	}
	if err := c.Get(ctx, "/apis", &groups); err != nil {
		return nil, err
	}
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			gvs = append(gvs, servedVersion{name: v.GroupVersion, preferred: v.GroupVersion == g.PreferredVersion.GroupVersion})
		}
	}
	return gvs, nil
}

// DiscoveryError names the group-versions whose resources could not be
// read, as client-go's ErrGroupDiscoveryFailed does.
type DiscoveryError struct {
	// Groups maps each such group-version ("group/version") to why.
	Groups map[string]error
}

func (e *DiscoveryError) Error() string {
	parts := make([]string, 0, len(e.Groups))
	for gv, err := range e.Groups {
		parts = append(parts, fmt.Sprintf("%s: %v", gv, err))
	}
	sort.Strings(parts)
	return "unable to retrieve the complete list of server APIs: " + strings.Join(parts, ", ")
}

// PreferredResources keeps one version of each group and resource, as
// client-go's ServerPreferredResources does: the group's preferred
// version when it serves the resource, else the first that does.
func PreferredResources(rs []Resource) []Resource {
	type groupResource struct{ group, resource string }
	chosen := map[groupResource]int{}
	var out []Resource
	for _, r := range rs {
		gr := groupResource{r.Group, r.Resource}
		i, seen := chosen[gr]
		switch {
		case !seen:
			chosen[gr] = len(out)
			out = append(out, r)
		case r.Preferred:
			out[i] = r
		}
	}
	return out
}

// ParseAPIVersion splits an apiVersion ("group/version", or "version" for
// the core group).
func ParseAPIVersion(apiVersion string) meta.GroupVersion {
	if g, v, ok := strings.Cut(apiVersion, "/"); ok {
		return meta.GroupVersion{Group: g, Version: v}
	}
	return meta.GroupVersion{Version: apiVersion}
}
