package discovery

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/openapi"
)

// Docs holds every discovery and OpenAPI document, encoded once when the
// server publishes its resources.
type Docs struct {
	apiVersions      []byte
	aggregatedCore   []byte
	groupList        []byte
	aggregatedGroups []byte
	// aggregatedCoreETag and aggregatedGroupsETag are the quoted hashes
	// of the aggregated documents, which clients revalidate with
	// If-None-Match as they do against kube-apiserver.
	aggregatedCoreETag, aggregatedGroupsETag string
	groups                                   map[string]APIGroup
	resourceLists                            map[meta.GroupVersion]APIResourceList
	openapiIndex                             []byte
	openapiDocs                              map[string][]byte // "apis/G/V" or "api/v1"
	openapiErrors                            []error
	// openapiV2 is the Swagger 2.0 document of every group-version,
	// /openapi/v2, and openapiV2ETag its entity tag.
	openapiV2, openapiV2ETag []byte
	// openapiV2Protobuf is the same document in gnostic's protobuf form,
	// encoded with it.
	openapiV2Protobuf []byte
}

// Build renders every document from the served resources, which come
// sorted by group (in the order of groups, the registration order),
// version and name. sortVersions orders a group's versions, highest
// ranked first.
func Build(resources []Resource, groups []string, sortVersions func([]string) []string) *Docs {
	d := &Docs{
		groups:        map[string]APIGroup{},
		resourceLists: map[meta.GroupVersion]APIResourceList{},
		openapiDocs:   map[string][]byte{},
	}
	versionsOf := map[string][]string{}
	byGV := map[meta.GroupVersion][]*Resource{}
	for i := range resources {
		r := &resources[i]
		gv := r.groupVersion()
		if len(byGV[gv]) == 0 {
			versionsOf[gv.Group] = append(versionsOf[gv.Group], gv.Version)
		}
		byGV[gv] = append(byGV[gv], r)
	}
	for gv, rs := range byGV {
		d.resourceLists[gv] = resourceListFor(gv, rs)
		d.addOpenAPI(gv, rs)
	}
	var list apiGroupList
	list.TypeMeta = meta.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}
	list.Groups = []APIGroup{}
	aggGroups := discoveryList{TypeMeta: meta.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"}, Items: []discoveryGroup{}}
	aggCore := aggGroups
	aggCore.Items = []discoveryGroup{}
	for _, g := range groups {
		versions := sortVersions(versionsOf[g])
		dg := discoveryGroup{Metadata: discoveryMeta{Name: g}}
		for _, v := range versions {
			dg.Versions = append(dg.Versions, aggregatedVersion(v, byGV[meta.GroupVersion{Group: g, Version: v}]))
		}
		if g == "" {
			aggCore.Items = append(aggCore.Items, dg)
			continue
		}
		aggGroups.Items = append(aggGroups.Items, dg)
		ag := APIGroup{TypeMeta: meta.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}, Name: g}
		for _, v := range versions {
			ag.Versions = append(ag.Versions, groupVersionForDiscovery{GroupVersion: g + "/" + v, Version: v})
		}
		ag.PreferredVersion = ag.Versions[0]
		d.groups[g] = ag
		ag.TypeMeta = meta.TypeMeta{}
		list.Groups = append(list.Groups, ag)
	}
	core := apiVersions{
		TypeMeta:                   meta.TypeMeta{Kind: "APIVersions"},
		Versions:                   sortVersions(versionsOf[""]),
		ServerAddressByClientCIDRs: []serverAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: ""}},
	}
	if core.Versions == nil {
		core.Versions = []string{}
	}
	d.apiVersions = mustJSON(core)
	d.groupList = mustJSON(list)
	d.aggregatedGroups = mustJSON(aggGroups)
	d.aggregatedCore = mustJSON(aggCore)
	d.aggregatedGroupsETag = `"` + openapi.Hash(d.aggregatedGroups) + `"`
	d.aggregatedCoreETag = `"` + openapi.Hash(d.aggregatedCore) + `"`
	index, err := openapi.Index(d.openapiDocs)
	if err != nil {
		index = []byte(`{"paths":{}}`)
	}
	d.openapiIndex = index
	d.buildSwagger()
	return d
}

// buildSwagger merges the OpenAPI v3 documents into /openapi/v2's.
func (d *Docs) buildSwagger() {
	doc, err := openapi.Swagger(d.openapiDocs)
	if err != nil {
		d.openapiErrors = append(d.openapiErrors, fmt.Errorf("openapi v2: %w", err))
		return
	}
	d.openapiV2, d.openapiV2ETag = doc, []byte(openapi.SwaggerETag(doc))
	pb, err := openapi.SwaggerProtobuf(doc)
	if err != nil {
		d.openapiErrors = append(d.openapiErrors, fmt.Errorf("openapi v2 protobuf: %w", err))
		return
	}
	d.openapiV2Protobuf = pb
}

// OpenAPIErrors lists the OpenAPI documents that could not be built,
// which are not served.
func (d *Docs) OpenAPIErrors() []error { return d.openapiErrors }

// Group returns the legacy discovery document of a group, /apis/G.
func (d *Docs) Group(name string) (APIGroup, bool) {
	g, ok := d.groups[name]
	return g, ok
}

// ResourceList returns the legacy discovery document of a
// group-version, /apis/G/V.
func (d *Docs) ResourceList(gv meta.GroupVersion) (APIResourceList, bool) {
	rl, ok := d.resourceLists[gv]
	return rl, ok
}

// OpenAPIIndex returns the OpenAPI v3 index, /openapi/v3.
func (d *Docs) OpenAPIIndex() []byte { return d.openapiIndex }

func resourceListFor(gv meta.GroupVersion, rs []*Resource) APIResourceList {
	rl := APIResourceList{
		TypeMeta:     meta.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: gv.String(),
	}
	for _, k := range rs {
		hash := ""
		if !k.Builtin {
			hash = storageVersionHash(k.StorageKind)
		}
		rl.Resources = append(rl.Resources, meta.APIResource{
			Name: k.Resource, SingularName: k.Singular, Namespaced: k.Namespaced, Kind: k.Kind,
			Verbs: k.Verbs, ShortNames: k.ShortNames, Categories: k.Categories,
			StorageVersionHash: hash,
		})
		for _, sub := range k.Subresources {
			rl.Resources = append(rl.Resources, meta.APIResource{
				Name: k.Resource + "/" + sub.Name, Namespaced: k.Namespaced,
				Group: sub.Group, Version: sub.Version, Kind: sub.Kind, Verbs: sub.Verbs,
			})
		}
	}
	return rl
}

func aggregatedVersion(v string, rs []*Resource) discoveryVersion {
	dv := discoveryVersion{Version: v, Freshness: "Current"}
	for _, k := range rs {
		scope := "Cluster"
		if k.Namespaced {
			scope = "Namespaced"
		}
		dr := discoveryResource{
			Resource: k.Resource, Scope: scope, SingularResource: k.Singular,
			ResponseKind: &gvkRef{Group: k.Group, Version: k.Version, Kind: k.Kind},
			Verbs:        k.Verbs, ShortNames: k.ShortNames, Categories: k.Categories,
		}
		if k.Builtin {
			dr.ResponseKind = &gvkRef{Kind: k.Kind}
		}
		for _, sub := range k.Subresources {
			dr.Subresources = append(dr.Subresources, discoverySubresource{
				Subresource: sub.Name, Verbs: sub.Verbs,
				ResponseKind: &gvkRef{Group: sub.Group, Version: sub.Version, Kind: sub.Kind},
			})
		}
		dv.Resources = append(dv.Resources, dr)
	}
	return dv
}

func (d *Docs) addOpenAPI(gv meta.GroupVersion, rs []*Resource) {
	kinds := make([]openapi.Kind, 0, len(rs))
	for _, k := range rs {
		if k.Builtin {
			continue
		}
		var subs []string
		for _, s := range k.Subresources {
			subs = append(subs, s.Name)
		}
		kinds = append(kinds, openapi.Kind{
			Group: k.Group, Version: k.Version, Kind: k.Kind, Resource: k.Resource,
			ListKind: k.Kind + "List", Namespaced: k.Namespaced, Schema: k.Schema,
			Verbs: k.Verbs, Subresources: subs,
		})
	}
	if len(kinds) == 0 {
		return
	}
	doc, err := openapi.Document(gv.Group, gv.Version, kinds)
	if err != nil {
		// The schemas were validated at registration; a failure here is a
		// bug, and serving no document is better than serving a wrong one.
		d.openapiErrors = append(d.openapiErrors, fmt.Errorf("openapi %s: %w", gv, err))
		return
	}
	key := "apis/" + gv.Group + "/" + gv.Version
	if gv.Group == "" {
		key = "api/" + gv.Version
	}
	d.openapiDocs[key] = doc
}

// storageVersionHash is an opaque digest of the stored kind, as
// kube-apiserver publishes for storage migration tools.
func storageVersionHash(gvk meta.GroupVersionKind) string {
	sum := sha256.Sum256([]byte(gvk.Group + "/" + gvk.Version + "/" + gvk.Kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
