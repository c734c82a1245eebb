package openapi

import (
	"fmt"
	"reflect"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// Component names of the shared types, as kube-apiserver publishes them.
const (
	metaPrefix    = "io.k8s.apimachinery.pkg.apis.meta.v1."
	objectMetaRef = metaPrefix + "ObjectMeta"
	listMetaRef   = metaPrefix + "ListMeta"
	statusRef     = metaPrefix + "Status"
	deleteOptsRef = metaPrefix + "DeleteOptions"
	patchRef      = metaPrefix + "Patch"
	watchEventRef = metaPrefix + "WatchEvent"
	scaleRef      = "io.k8s.api.autoscaling.v1.Scale"
)

// Descriptions of the fields every kind carries.
const (
	descAPIVersion = "The versioned schema of this representation of the object, as group/version (or version alone for the core group)."
	descKind       = "The kind of object this is, in CamelCase."
	descObjectMeta = "Standard object metadata."
	descListMeta   = "Standard list metadata."
)

// addMetaComponents registers the meta types every group-version document
// refers to. Status, DeleteOptions and WatchEvent are served by every
// group-version, so they list it in their x-kubernetes-group-version-kind
// as kube-apiserver does.
func (c *converter) addMetaComponents(group, version string) error {
	// Leaves first: a component takes the description of the node it is
	// made from, and a field may have given a nested node its own.
	for _, v := range []any{
		meta.Time{}, meta.FieldsV1{}, meta.ManagedFieldsEntry{}, meta.OwnerReference{},
		meta.ObjectMeta{}, meta.ListMeta{}, meta.StatusCause{}, meta.StatusDetails{},
		meta.Status{}, meta.Preconditions{}, meta.DeleteOptions{}, meta.WatchEvent{},
	} {
		s, err := schema.FromType(reflect.TypeOf(v))
		if err != nil {
			return fmt.Errorf("openapi: meta type %T: %w", v, err)
		}
		c.register(s)
	}
	c.register(&schema.Schema{
		Name:        patchRef,
		Type:        "object",
		Description: "The body of a PATCH request: a JSON patch, a JSON merge patch, a strategic merge patch or an apply configuration, as named by the Content-Type.",
	})
	c.setGVKs(statusRef, gvkList(gvk{Version: "v1", Kind: "Status"}))
	for _, kind := range []string{"DeleteOptions", "WatchEvent"} {
		gvks := gvkList(gvk{Version: "v1", Kind: kind})
		if group != "" || version != "v1" {
			gvks = append(gvks, gvkList(gvk{Group: group, Version: version, Kind: kind})...)
		}
		c.setGVKs(metaPrefix+kind, gvks)
	}
	return nil
}

// addScaleComponents registers autoscaling/v1 Scale, the body of every
// scale subresource.
func (c *converter) addScaleComponents() {
	int32Schema := func(desc string) *schema.Schema {
		return &schema.Schema{Type: "integer", Format: "int32", Description: desc}
	}
	spec := &schema.Schema{
		Name:          "io.k8s.api.autoscaling.v1.ScaleSpec",
		Type:          "object",
		Description:   "The desired state of a scale subresource.",
		Properties:    map[string]*schema.Schema{"replicas": int32Schema("The desired number of instances.")},
		PropertyOrder: []string{"replicas"},
	}
	status := &schema.Schema{
		Name:        "io.k8s.api.autoscaling.v1.ScaleStatus",
		Type:        "object",
		Description: "The observed state of a scale subresource.",
		Properties: map[string]*schema.Schema{
			"replicas": int32Schema("The observed number of instances."),
			"selector": {Type: "string", Description: "Label selector of the instances, in the string form kubectl accepts."},
		},
		PropertyOrder: []string{"replicas", "selector"},
		Required:      []string{"replicas"},
	}
	scale := &schema.Schema{
		Name:        scaleRef,
		Type:        "object",
		Description: "The scale subresource of a scalable object.",
		Properties: map[string]*schema.Schema{
			"spec":   spec,
			"status": status,
		},
		PropertyOrder: []string{"spec", "status"},
	}
	c.register(scale)
	m := c.schemas[scaleRef].(map[string]any)
	addTypeMeta(m, descObjectMeta, objectMetaRef)
	m["x-kubernetes-group-version-kind"] = gvkList(gvk{Group: "autoscaling", Version: "v1", Kind: "Scale"})
}

// addTypeMeta adds apiVersion, kind and metadata to the properties of
// object schema m, metadata referring to component metaRef.
func addTypeMeta(m map[string]any, metaDesc, metaRef string) {
	props, _ := m["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		m["properties"] = props
	}
	props["apiVersion"] = map[string]any{"type": "string", "description": descAPIVersion}
	props["kind"] = map[string]any{"type": "string", "description": descKind}
	props["metadata"] = map[string]any{"description": metaDesc, "allOf": []any{ref(metaRef)}}
}

func (c *converter) setGVKs(name string, gvks []map[string]string) {
	if m, ok := c.schemas[name].(map[string]any); ok {
		m["x-kubernetes-group-version-kind"] = gvks
	}
}

// gvkList renders group-version-kinds as a schema's
// x-kubernetes-group-version-kind: a list of {group, kind, version}.
func gvkList(gvks ...gvk) []map[string]string {
	out := make([]map[string]string, len(gvks))
	for i, g := range gvks {
		out[i] = map[string]string{"group": g.Group, "version": g.Version, "kind": g.Kind}
	}
	return out
}
