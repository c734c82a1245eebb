package discovery

import "github.com/kapi-dev/kapi/meta"

// Content types of the two discovery formats.
const (
	aggregatedDiscoveryType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	legacyDiscoveryType     = "application/json"
)

type groupVersionForDiscovery struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

// APIGroup is the legacy discovery document of a group, /apis/G.
type APIGroup struct {
	meta.TypeMeta
	Name             string                     `json:"name"`
	Versions         []groupVersionForDiscovery `json:"versions"`
	PreferredVersion groupVersionForDiscovery   `json:"preferredVersion"`
}

type apiGroupList struct {
	meta.TypeMeta
	Groups []APIGroup `json:"groups"`
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

// APIResourceList is the legacy discovery document of a group-version,
// /apis/G/V.
type APIResourceList struct {
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
