package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/schema"
)

// The Widget and Gadget kinds of DESIGN.md, as a host would declare them.
type widget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            widgetSpec   `json:"spec,omitempty" description:"The desired state of the widget."`
	Status          widgetStatus `json:"status,omitempty"`
}

type widgetSpec struct {
	Replicas *int32       `json:"replicas,omitempty" default:"1" minimum:"0" maximum:"1000" description:"Desired number of replicas."`
	Color    string       `json:"color,omitempty" pattern:"^[a-z]+$"`
	Size     string       `json:"size,omitempty"`
	Tags     []string     `json:"tags,omitempty" listType:"set"`
	Ports    []widgetPort `json:"ports,omitempty" listType:"map" listMapKey:"name"`
}

type widgetPort struct {
	Name     string `json:"name"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol,omitempty" default:"\"TCP\""`
}

type widgetStatus struct {
	ReadyReplicas      int32             `json:"readyReplicas,omitempty"`
	ObservedGeneration int64             `json:"observedGeneration,omitempty"`
	Selector           string            `json:"selector,omitempty"`
	Conditions         []widgetCondition `json:"conditions,omitempty" listType:"map" listMapKey:"type"`
}

type widgetCondition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty"`
}

type gadget struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            struct {
		Owner string `json:"owner,omitempty"`
		Level int32  `json:"level,omitempty"`
	} `json:"spec,omitempty"`
}

const (
	group   = "stable.example.com"
	version = "v1"
)

func widgetKind(t *testing.T) Kind {
	t.Helper()
	s, err := schema.FromType(reflect.TypeFor[widget]())
	if err != nil {
		t.Fatal(err)
	}
	return Kind{
		Kind: "Widget", Resource: "widgets", Namespaced: true, Schema: s,
		Subresources: []string{"status", "scale"},
	}
}

func gadgetKind(t *testing.T) Kind {
	t.Helper()
	s, err := schema.FromType(reflect.TypeFor[gadget]())
	if err != nil {
		t.Fatal(err)
	}
	return Kind{Group: group, Version: version, Kind: "Gadget", Resource: "gadgets", Schema: s}
}

// decoded builds the document for kinds and decodes it as clients do.
func decoded(t *testing.T, kinds ...Kind) map[string]any {
	t.Helper()
	b, err := Document(group, version, kinds)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// get walks decoded JSON by object keys.
func get(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// resolve follows a $ref, or the first $ref of an allOf, as kubectl
// explain does.
func resolve(doc map[string]any, s any) map[string]any {
	m, _ := s.(map[string]any)
	if all, ok := m["allOf"].([]any); ok && len(all) > 0 {
		m, _ = all[0].(map[string]any)
	}
	if r, ok := m["$ref"].(string); ok {
		name := strings.TrimPrefix(r, schemaRefPrefix)
		m, _ = get(doc, "components", "schemas", name).(map[string]any)
	}
	return m
}

// explain finds the component schema of a kind by its
// x-kubernetes-group-version-kind and follows a field path, as kubectl
// explain's template does.
func explain(doc map[string]any, gvk map[string]any, path ...string) map[string]any {
	var cur map[string]any
	for _, s := range get(doc, "components", "schemas").(map[string]any) {
		list, _ := get(s, "x-kubernetes-group-version-kind").([]any)
		for _, e := range list {
			if reflect.DeepEqual(e, gvk) {
				cur = s.(map[string]any)
			}
		}
	}
	for _, field := range path {
		cur = resolve(doc, cur)
		for cur != nil && cur["items"] != nil {
			cur = resolve(doc, cur["items"])
		}
		next, _ := get(cur, "properties", field).(map[string]any)
		if next == nil {
			return nil
		}
		cur = next
	}
	return cur
}
