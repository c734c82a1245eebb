package apiserver

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kapi-dev/kapi/apiserver/internal/responsewriters"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/openapi"
)

// Content types of the two discovery formats.
const (
	aggregatedDiscoveryType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	legacyDiscoveryType     = "application/json"
)

// discoveryDocs holds every discovery and OpenAPI document, encoded once
// when the server starts serving.
type discoveryDocs struct {
	apiVersions      []byte
	aggregatedCore   []byte
	groupList        []byte
	aggregatedGroups []byte
	// aggregatedCoreETag and aggregatedGroupsETag are the quoted hashes
	// of the aggregated documents, which clients revalidate with
	// If-None-Match as they do against kube-apiserver.
	aggregatedCoreETag, aggregatedGroupsETag string
	groups                                   map[string]apiGroup
	resourceLists                            map[meta.GroupVersion]apiResourceList
	openapiIndex                             []byte
	openapiDocs                              map[string][]byte // "apis/G/V" or "api/v1"
	openapiErrors                            []error
	// handlers routes requests to the resources the documents describe.
	handlers map[resourceKey]*handler
}

// lookup returns the handler of a served resource, or nil.
func (d *discoveryDocs) lookup(group, version, res string) *handler {
	return d.handlers[resourceKey{group, version, res}]
}

type groupVersionForDiscovery struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

type apiGroup struct {
	meta.TypeMeta
	Name             string                     `json:"name"`
	Versions         []groupVersionForDiscovery `json:"versions"`
	PreferredVersion groupVersionForDiscovery   `json:"preferredVersion"`
}

type apiGroupList struct {
	meta.TypeMeta
	Groups []apiGroup `json:"groups"`
}

type apiVersions struct {
	meta.TypeMeta
	Versions                   []string                    `json:"versions"`
	ServerAddressByClientCIDRs []serverAddressByClientCIDR `json:"serverAddressByClientCIDRs"`
}

type serverAddressByClientCIDR struct {
	ClientCIDR    string `json:"clientCIDR"`
	ServerAddress string `json:"serverAddress"`
}

type apiResourceList struct {
	meta.TypeMeta
	GroupVersion string             `json:"groupVersion"`
	Resources    []meta.APIResource `json:"resources"`
}

// The aggregated discovery (apidiscovery.k8s.io/v2) types.
type discoveryList struct {
	meta.TypeMeta
	ListMeta meta.ListMeta    `json:"metadata"`
	Items    []discoveryGroup `json:"items"`
}

type discoveryGroup struct {
	Metadata discoveryMeta      `json:"metadata"`
	Versions []discoveryVersion `json:"versions,omitempty"`
}

type discoveryMeta struct {
	Name              string    `json:"name,omitempty"`
	CreationTimestamp meta.Time `json:"creationTimestamp"`
}

type discoveryVersion struct {
	Version   string              `json:"version,omitempty"`
	Resources []discoveryResource `json:"resources,omitempty"`
	Freshness string              `json:"freshness,omitempty"`
}

type gvkRef struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type discoveryResource struct {
	Resource         string                 `json:"resource"`
	ResponseKind     *gvkRef                `json:"responseKind,omitempty"`
	Scope            string                 `json:"scope"`
	SingularResource string                 `json:"singularResource"`
	Verbs            []string               `json:"verbs"`
	ShortNames       []string               `json:"shortNames,omitempty"`
	Categories       []string               `json:"categories,omitempty"`
	Subresources     []discoverySubresource `json:"subresources,omitempty"`
}

type discoverySubresource struct {
	Subresource  string   `json:"subresource"`
	ResponseKind *gvkRef  `json:"responseKind,omitempty"`
	Verbs        []string `json:"verbs"`
}

// buildDiscovery renders every discovery document from the registered
// resources, which come sorted by group (registration order), version and
// name.
func buildDiscovery(resources []*resource, groups []string) *discoveryDocs {
	d := &discoveryDocs{
		groups:        map[string]apiGroup{},
		resourceLists: map[meta.GroupVersion]apiResourceList{},
		openapiDocs:   map[string][]byte{},
	}
	versionsOf := map[string][]string{}
	byGV := map[meta.GroupVersion][]*resource{}
	for _, r := range resources {
		gv := r.kind.groupVersion()
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
	list.Groups = []apiGroup{}
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
		ag := apiGroup{TypeMeta: meta.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}, Name: g}
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
	return d
}

func resourceListFor(gv meta.GroupVersion, rs []*resource) apiResourceList {
	rl := apiResourceList{
		TypeMeta:     meta.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: gv.String(),
	}
	for _, r := range rs {
		k := r.kind
		rl.Resources = append(rl.Resources, meta.APIResource{
			Name: k.Resource, SingularName: k.Singular, Namespaced: k.Namespaced, Kind: k.Kind,
			Verbs: r.verbs(), ShortNames: k.ShortNames, Categories: k.Categories,
			StorageVersionHash: storageVersionHash(r.stor.kind.gvk()),
		})
		for _, sub := range r.subresources() {
			rl.Resources = append(rl.Resources, meta.APIResource{
				Name: k.Resource + "/" + sub.name, Namespaced: k.Namespaced,
				Group: sub.group, Version: sub.version, Kind: sub.kind, Verbs: sub.verbs,
			})
		}
	}
	return rl
}

func aggregatedVersion(v string, rs []*resource) discoveryVersion {
	dv := discoveryVersion{Version: v, Freshness: "Current"}
	for _, r := range rs {
		k := r.kind
		scope := "Cluster"
		if k.Namespaced {
			scope = "Namespaced"
		}
		dr := discoveryResource{
			Resource: k.Resource, Scope: scope, SingularResource: k.Singular,
			ResponseKind: &gvkRef{Group: k.Group, Version: k.Version, Kind: k.Kind},
			Verbs:        r.verbs(), ShortNames: k.ShortNames, Categories: k.Categories,
		}
		for _, sub := range r.subresources() {
			dr.Subresources = append(dr.Subresources, discoverySubresource{
				Subresource: sub.name, Verbs: sub.verbs,
				ResponseKind: &gvkRef{Group: sub.group, Version: sub.version, Kind: sub.kind},
			})
		}
		dv.Resources = append(dv.Resources, dr)
	}
	return dv
}

func (d *discoveryDocs) addOpenAPI(gv meta.GroupVersion, rs []*resource) {
	kinds := make([]openapi.Kind, 0, len(rs))
	for _, r := range rs {
		k := r.kind
		var subs []string
		for _, s := range r.subresources() {
			subs = append(subs, s.name)
		}
		kinds = append(kinds, openapi.Kind{
			Group: k.Group, Version: k.Version, Kind: k.Kind, Resource: k.Resource,
			ListKind: k.Kind + "List", Namespaced: k.Namespaced, Schema: k.Schema,
			Verbs: r.verbs(), Subresources: subs,
		})
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

// serveDiscovery answers /api or /apis in the aggregated format when the
// client asks for it, and in the legacy format otherwise.
func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request, legacy, aggregated []byte, etag string) {
	for _, a := range codec.ParseAccept(r.Header.Get("Accept")) {
		if a.Q == 0 {
			continue
		}
		if a.Type == "application/json" && a.Param("as") == "APIGroupDiscoveryList" &&
			a.Param("g") == "apidiscovery.k8s.io" && a.Param("v") == "v2" {
			w.Header().Set("Vary", "Accept")
			w.Header().Set("Etag", etag)
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			responsewriters.WriteRaw(w, http.StatusOK, aggregatedDiscoveryType, aggregated)
			return
		}
		if a.Param("as") == "" && (a.Type == "application/json" || a.Type == "*/*" || a.Type == "application/*") {
			break
		}
	}
	w.Header().Set("Vary", "Accept")
	responsewriters.WriteRaw(w, http.StatusOK, legacyDiscoveryType, legacy)
}

func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, d *discoveryDocs, key string) {
	doc, ok := d.openapiDocs[key]
	if !ok {
		responsewriters.WriteRaw(w, http.StatusNotFound, "text/plain; charset=utf-8", []byte("404 page not found\n"))
		return
	}
	etag := `"` + openapi.Hash(doc) + `"`
	w.Header().Set("Etag", etag)
	if h := r.URL.Query().Get("hash"); h != "" && `"`+h+`"` == etag {
		// A request naming the current hash may be cached for good.
		w.Header().Set("Cache-Control", "public, immutable")
		w.Header().Set("Expires", "Thu, 01 Jan 2099 00:00:00 GMT")
	} else {
		w.Header().Set("Cache-Control", "no-cache, private")
	}
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	responsewriters.WriteRaw(w, http.StatusOK, "application/json", doc)
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
