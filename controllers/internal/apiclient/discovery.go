package apiclient

import (
	"context"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/meta"
)

// Resource is one served resource, as discovery describes it.
type Resource struct {
	Group, Version, Kind, Resource string
	Namespaced                     bool
	Verbs                          []string
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
func (c *Client) Resources(ctx context.Context) ([]Resource, error) {
	var gvs []string
	var core struct{ Versions []string }
	if err := c.Get(ctx, "/api", &core); err != nil {
		return nil, err
	}
	for _, v := range core.Versions {
		gvs = append(gvs, "/api/"+v)
	}
	var groups struct {
		Groups []struct {
			Versions []struct{ GroupVersion string }
		}
	}
	if err := c.Get(ctx, "/apis", &groups); err != nil {
		return nil, err
	}
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			gvs = append(gvs, "/apis/"+v.GroupVersion)
		}
	}
	var out []Resource
	for _, path := range gvs {
		var list struct {
			GroupVersion string
			Resources    []meta.APIResource
		}
		if err := c.Get(ctx, path, &list); err != nil {
			return nil, err
		}
		gv := ParseAPIVersion(list.GroupVersion)
		for _, r := range list.Resources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			out = append(out, Resource{Group: gv.Group, Version: gv.Version, Kind: r.Kind, Resource: r.Name,
				Namespaced: r.Namespaced, Verbs: r.Verbs})
		}
	}
	return out, nil
}

// ParseAPIVersion splits an apiVersion ("group/version", or "version" for
// the core group).
func ParseAPIVersion(apiVersion string) meta.GroupVersion {
	if g, v, ok := strings.Cut(apiVersion, "/"); ok {
		return meta.GroupVersion{Group: g, Version: v}
	}
	return meta.GroupVersion{Version: apiVersion}
}
