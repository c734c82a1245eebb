package apiserver

import (
	"github.com/kapi-dev/kapi/apiserver/internal/discovery"
	"github.com/kapi-dev/kapi/apiserver/internal/handlers"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/apiserver/internal/reviews"
)

// withoutAny returns list without the elements of drop.
func withoutAny(list, drop []string) []string {
	out := make([]string, 0, len(list))
	for _, v := range list {
		if !contains(drop, v) {
			out = append(out, v)
		}
	}
	return out
}

// discoveryDocs is what requests see: every discovery and OpenAPI
// document, encoded once when the server publishes its resources, and
// the routing table of the resources they describe.
type discoveryDocs struct {
	*discovery.Docs
	// handlers routes requests to the resources the documents describe.
	handlers map[resourceKey]*handlers.Handler
}

// lookup returns the handler of a served resource, or nil.
func (d *discoveryDocs) lookup(group, version, res string) *handlers.Handler {
	return d.handlers[resourceKey{group, version, res}]
}

// buildDiscovery renders every discovery document from the registered
// resources, which come sorted by group (registration order), version and
// name.
//
// The reviews, which every server answers, come first, as kube-apiserver
// lists its built-in groups before those of custom resources.
func buildDiscovery(resources []*registry.Resource, groups []string) *discoveryDocs {
	described := reviews.Resources()
	groups = append(reviews.Groups(), withoutAny(groups, reviews.Groups())...)
	for _, r := range resources {
		described = append(described, describeResource(r))
	}
	return &discoveryDocs{Docs: discovery.Build(described, groups, registry.SortVersions)}
}

// describeResource says what the discovery and OpenAPI documents publish of the
// resource.
func describeResource(r *registry.Resource) discovery.Resource {
	k := r.Kind
	var subs []discovery.Subresource
	for _, sub := range r.Subresources() {
		subs = append(subs, discovery.Subresource{
			Name: sub.Name, Group: sub.Group, Version: sub.Version, Kind: sub.Kind, Verbs: sub.Verbs,
		})
	}
	return discovery.Resource{
		Group: k.Group, Version: k.Version, Kind: k.Kind,
		Resource: k.Resource, Singular: k.Singular, Namespaced: k.Namespaced,
		Verbs: r.Verbs(), ShortNames: k.ShortNames, Categories: k.Categories,
		Subresources: subs,
		StorageKind:  r.StorageVersion.Kind.GroupVersionKind(),
		Schema:       k.Schema,
	}
}
