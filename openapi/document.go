package openapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kapi-dev/kapi/schema"
)

// Kind describes one kind served in a group-version, as much as its
// OpenAPI document needs.
type Kind struct {
	// Group and Version must match the document's; empty means the same.
	Group, Version string
	// Kind is the CamelCase kind, Resource the lower-case plural in URLs and
	// ListKind the kind of lists (Kind+"List" when empty).
	Kind, Resource, ListKind string
	// Namespaced kinds are served under /namespaces/{namespace}/.
	Namespaced bool
	// Schema models the kind's own fields (spec, status, ...). apiVersion,
	// kind and metadata are supplied here and override any in Schema. A nil
	// Schema publishes an object that preserves unknown fields.
	Schema *schema.Schema
	// Verbs served: a subset of get, list, watch, create, update, patch,
	// delete and deletecollection. Empty means all of them.
	Verbs []string
	// Subresources served: "status", "scale" and "finalize" (a
	// namespace's, which is only replaced).
	Subresources []string
	// StrategicMergePatch lists application/strategic-merge-patch+json among
	// the PATCH content types. Off, as for CustomResourceDefinitions, kubectl
	// apply sends JSON merge patches.
	StrategicMergePatch bool
	// Protobuf lists application/vnd.kubernetes.protobuf among the request
	// and response content types.
	Protobuf bool
}

// allVerbs are the verbs a Kind may serve, in kube-apiserver's order.
var allVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}

// Document builds the OpenAPI v3 document kube-apiserver serves at
// /openapi/v3/apis/<group>/<version> (/openapi/v3/api/v1 for the core
// group) for the given kinds, as JSON. The output is deterministic: the
// same input gives the same bytes, and so the same [Hash].
//
// The document mirrors the one kube-apiserver builds for
// CustomResourceDefinitions: paths for every served verb and subresource
// with x-kubernetes-action and x-kubernetes-group-version-kind on each
// operation, one component schema per kind and list kind, and the meta/v1
// components they refer to.
func Document(group, version string, kinds []Kind) ([]byte, error) {
	if version == "" {
		return nil, fmt.Errorf("openapi: empty version")
	}
	d := &document{
		OpenAPI:    "3.0.0",
		Info:       info{Title: "Kubernetes", Version: "v0.0.0"},
		Paths:      map[string]*pathItem{},
		Components: components{SecuritySchemes: securitySchemes()},
	}
	c := newConverter()
	if err := c.addMetaComponents(group, version); err != nil {
		return nil, err
	}
	p := newPathBuilder(group, version)
	seen := map[string]string{}
	for _, k := range kinds {
		k, err := normalize(k, group, version)
		if err != nil {
			return nil, err
		}
		for _, key := range []string{"kind " + k.Kind, "kind " + k.ListKind, "resource " + k.Resource} {
			if prev, dup := seen[key]; dup {
				return nil, fmt.Errorf("openapi: %s of %s is already used by %s", key, k.Kind, prev)
			}
			seen[key] = k.Kind
		}
		c.addKind(k)
		if slices.Contains(k.Subresources, "scale") {
			c.addScaleComponents()
		}
		p.addKind(d.Paths, k)
	}
	hoistParameters(d.Paths)
	d.Components.Schemas = c.schemas
	return json.Marshal(d)
}

// normalize checks k and fills in its defaults.
func normalize(k Kind, group, version string) (Kind, error) {
	k.Group = cmpOr(k.Group, group)
	k.Version = cmpOr(k.Version, version)
	k.ListKind = cmpOr(k.ListKind, k.Kind+"List")
	switch {
	case k.Group != group || k.Version != version:
		return k, fmt.Errorf("openapi: kind %s is in %s/%s, not %s/%s", k.Kind, k.Group, k.Version, group, version)
	case k.Kind == "" || k.Resource == "":
		return k, fmt.Errorf("openapi: kind %q needs both a kind and a resource name (resource %q)", k.Kind, k.Resource)
	case strings.ContainsAny(k.Resource, "/{}") || strings.ContainsAny(k.Kind, "/{}"):
		return k, fmt.Errorf("openapi: kind %q: resource %q is not a single path segment", k.Kind, k.Resource)
	case k.Schema != nil && k.Schema.Type != "object" && k.Schema.Type != "":
		return k, fmt.Errorf("openapi: kind %s: the schema must describe an object, not %s", k.Kind, k.Schema.Type)
	}
	if len(k.Verbs) == 0 {
		k.Verbs = slices.Clone(allVerbs)
	}
	for _, v := range k.Verbs {
		if !slices.Contains(allVerbs, v) {
			return k, fmt.Errorf("openapi: kind %s: unknown verb %q", k.Kind, v)
		}
	}
	for _, s := range k.Subresources {
		if s != "status" && s != "scale" && s != "finalize" {
			return k, fmt.Errorf("openapi: kind %s: unknown subresource %q", k.Kind, s)
		}
	}
	return k, nil
}

// componentName is the component schema name of a kind: for a custom
// kind the group's DNS labels reversed, then version and kind
// (com.example.stable.v1.Widget); kube's built-in kinds are named after
// their Go package, as kube names them (io.k8s.api.core.v1.Namespace,
// io.k8s.api.coordination.v1.Lease).
func componentName(group, version, kind string) string {
	switch {
	case group == "":
		return "io.k8s.api.core." + version + "." + kind
	case group == "apiextensions.k8s.io":
		return "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions." + version + "." + kind
	case strings.HasSuffix(group, ".k8s.io") || slices.Contains(legacyGroups(), group):
		// kube names its built-in types after their Go package,
		// k8s.io/api/<group>/<version>.
		return "io.k8s.api." + strings.TrimSuffix(group, ".k8s.io") + "." + version + "." + kind
	}
	labels := strings.Split(group, ".")
	slices.Reverse(labels)
	return strings.Join(labels, ".") + "." + version + "." + kind
}

// legacyGroups are kube's built-in groups whose names lack ".k8s.io".
func legacyGroups() []string { return []string{"apps", "batch", "autoscaling", "policy", "extensions"} }

// addKind registers the component schemas of a kind and its list kind.
func (c *converter) addKind(k Kind) {
	s := k.Schema.DeepCopy()
	if s == nil {
		s = &schema.Schema{Type: "object", XPreserveUnknownFields: true}
	}
	s.Name = ""
	s.Type = "object"
	for _, name := range []string{"apiVersion", "kind", "metadata"} {
		delete(s.Properties, name)
		s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
	}
	m := c.body(s)
	addTypeMeta(m, descObjectMeta, objectMetaRef)
	m["x-kubernetes-group-version-kind"] = gvkList(gvk{Group: k.Group, Version: k.Version, Kind: k.Kind})
	name := componentName(k.Group, k.Version, k.Kind)
	c.schemas[name] = m

	list := map[string]any{
		"type":        "object",
		"description": k.ListKind + " is a list of " + k.Kind + ".",
		"required":    []string{"items"},
		"properties": map[string]any{
			"items": map[string]any{
				"type":        "array",
				"description": "List of " + k.Resource + ".",
				"items":       ref(name),
			},
		},
		"x-kubernetes-group-version-kind": gvkList(gvk{Group: k.Group, Version: k.Version, Kind: k.ListKind}),
	}
	addTypeMeta(list, descListMeta, listMetaRef)
	c.schemas[componentName(k.Group, k.Version, k.ListKind)] = list
}

// The document as it is encoded. Maps keep the output sorted.
type document struct {
	OpenAPI    string               `json:"openapi"`
	Info       info                 `json:"info"`
	Paths      map[string]*pathItem `json:"paths"`
	Components components           `json:"components"`
}

type info struct {
	Title   string `json:"title"`
	Version string `json:"version"`
}

type components struct {
	Schemas         map[string]any `json:"schemas"`
	SecuritySchemes map[string]any `json:"securitySchemes"`
}

func securitySchemes() map[string]any {
	return map[string]any{"BearerToken": map[string]any{
		"type":        "apiKey",
		"description": "Bearer Token authentication",
		"name":        "authorization",
		"in":          "header",
	}}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
