package openapi

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var widgetGVK = map[string]any{"group": group, "version": version, "kind": "Widget"}

// TestFieldValidationSupported follows cli-runtime's QueryParamVerifierV3:
// the PATCH operation of the kind must carry its GVK and an inline
// fieldValidation query parameter.
func TestFieldValidationSupported(t *testing.T) {
	doc := decoded(t, widgetKind(t), gadgetKind(t))
	tests := []struct {
		path string
		gvk  map[string]any
	}{
		{"/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}", widgetGVK},
		{"/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}/status", widgetGVK},
		{"/apis/stable.example.com/v1/gadgets/{name}", map[string]any{"group": group, "version": version, "kind": "Gadget"}},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			op := get(doc, "paths", tc.path, "patch")
			if op == nil {
				t.Fatal("no PATCH operation")
			}
			if diff := cmp.Diff(tc.gvk, get(op, "x-kubernetes-group-version-kind")); diff != "" {
				t.Errorf("x-kubernetes-group-version-kind (-want +got):\n%s", diff)
			}
			if !hasParam(op, "fieldValidation", "query") {
				t.Errorf("no inline fieldValidation query parameter among %v", get(op, "parameters"))
			}
		})
	}
	for _, path := range []string{
		"/apis/stable.example.com/v1/namespaces/{namespace}/widgets",
		"/apis/stable.example.com/v1/namespaces/{namespace}/widgets/{name}",
	} {
		for _, method := range []string{"post", "put"} {
			if op := get(doc, "paths", path, method); op != nil && !hasParam(op, "fieldValidation", "query") {
				t.Errorf("%s %s: no fieldValidation", method, path)
			}
		}
	}
}

func hasParam(op any, name, in string) bool {
	params, _ := get(op, "parameters").([]any)
	for _, p := range params {
		if get(p, "name") == name && get(p, "in") == in {
			return true
		}
	}
	return false
}

func TestExplainWidget(t *testing.T) {
	doc := decoded(t, widgetKind(t))
	tests := []struct {
		path []string
		want map[string]any // keys that must have these values
	}{
		{[]string{"spec", "replicas"}, map[string]any{
			"type": "integer", "format": "int32", "minimum": 0.0, "maximum": 1000.0, "default": 1.0,
			"description": "Desired number of replicas.",
		}},
		{[]string{"spec", "color"}, map[string]any{"type": "string", "pattern": "^[a-z]+$"}},
		{[]string{"spec", "tags"}, map[string]any{"type": "array", "x-kubernetes-list-type": "set"}},
		{[]string{"spec", "ports"}, map[string]any{
			"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"},
		}},
		{[]string{"spec", "ports", "protocol"}, map[string]any{"default": "TCP"}},
		{[]string{"status", "observedGeneration"}, map[string]any{"format": "int64"}},
		{[]string{"status", "conditions"}, map[string]any{"x-kubernetes-list-map-keys": []any{"type"}}},
		{[]string{"metadata", "name"}, map[string]any{"type": "string"}},
		{[]string{"metadata", "ownerReferences"}, map[string]any{
			"x-kubernetes-patch-merge-key": "uid", "x-kubernetes-patch-strategy": "merge",
			"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"uid"},
		}},
		{[]string{"apiVersion"}, map[string]any{"type": "string"}},
		{[]string{"spec"}, map[string]any{"description": "The desired state of the widget."}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.path, "."), func(t *testing.T) {
			got := explain(doc, widgetGVK, tc.path...)
			if got == nil {
				t.Fatal("not found")
			}
			for k, v := range tc.want {
				if diff := cmp.Diff(v, got[k]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
		})
	}
	ports := explain(doc, widgetGVK, "spec", "ports")
	if diff := cmp.Diff([]any{"name", "port"}, get(ports, "items", "required")); diff != "" {
		t.Errorf("ports items required (-want +got):\n%s", diff)
	}
	lt := explain(doc, widgetGVK, "status", "conditions", "lastTransitionTime")
	if time := resolve(doc, lt); time["type"] != "string" || time["format"] != "date-time" {
		t.Errorf("lastTransitionTime resolves to %v", time)
	}
}

// TestRefsResolve checks that every $ref of the document names a component
// schema.
func TestRefsResolve(t *testing.T) {
	doc := decoded(t, widgetKind(t), gadgetKind(t))
	schemas := get(doc, "components", "schemas").(map[string]any)
	var walk func(v any)
	count := 0
	walk = func(v any) {
		switch t2 := v.(type) {
		case map[string]any:
			if r, ok := t2["$ref"].(string); ok {
				count++
				if _, ok := schemas[strings.TrimPrefix(r, schemaRefPrefix)]; !ok || !strings.HasPrefix(r, schemaRefPrefix) {
					t.Errorf("dangling $ref %s", r)
				}
			}
			for _, e := range t2 {
				walk(e)
			}
		case []any:
			for _, e := range t2 {
				walk(e)
			}
		}
	}
	walk(doc)
	if count == 0 {
		t.Fatal("no $ref at all")
	}
	var names []string
	for name := range schemas {
		names = append(names, name)
	}
	sort.Strings(names)
	want := []string{
		"com.example.stable.v1.Gadget", "com.example.stable.v1.GadgetList",
		"com.example.stable.v1.Widget", "com.example.stable.v1.WidgetList",
		"io.k8s.api.autoscaling.v1.Scale", "io.k8s.api.autoscaling.v1.ScaleSpec", "io.k8s.api.autoscaling.v1.ScaleStatus",
	}
	for _, n := range []string{"DeleteOptions", "FieldsV1", "ListMeta", "ManagedFieldsEntry", "ObjectMeta",
		"OwnerReference", "Patch", "Preconditions", "Status", "StatusCause", "StatusDetails", "Time", "WatchEvent"} {
		want = append(want, metaPrefix+n)
	}
	if !slices.Equal(names, want) {
		t.Errorf("component schemas\n got %v\nwant %v", names, want)
	}
	for _, name := range want {
		if name == "com.example.stable.v1.Gadget" || name == "com.example.stable.v1.Widget" {
			continue // the models have no description of their own
		}
		if get(schemas, name, "description") == "" || get(schemas, name, "description") == nil {
			t.Errorf("%s has no description", name)
		}
	}
}

func TestListAndMetaComponents(t *testing.T) {
	doc := decoded(t, widgetKind(t))
	list := get(doc, "components", "schemas", "com.example.stable.v1.WidgetList")
	wantGVK := []any{map[string]any{"group": group, "version": version, "kind": "WidgetList"}}
	if diff := cmp.Diff(wantGVK, get(list, "x-kubernetes-group-version-kind")); diff != "" {
		t.Errorf("WidgetList gvk (-want +got):\n%s", diff)
	}
	if r := get(list, "properties", "items", "items", "$ref"); r != schemaRefPrefix+"com.example.stable.v1.Widget" {
		t.Errorf("WidgetList items = %v", r)
	}
	if m := resolve(doc, get(list, "properties", "metadata")); get(m, "properties", "continue") == nil {
		t.Errorf("WidgetList metadata is not ListMeta: %v", m)
	}
	deleteGVKs := get(doc, "components", "schemas", deleteOptsRef, "x-kubernetes-group-version-kind").([]any)
	if len(deleteGVKs) != 2 {
		t.Errorf("DeleteOptions gvks = %v", deleteGVKs)
	} else if diff := cmp.Diff(map[string]any{"group": group, "version": version, "kind": "DeleteOptions"}, deleteGVKs[1]); diff != "" {
		t.Errorf("DeleteOptions gvk of the group (-want +got):\n%s", diff)
	}
	status := get(doc, "components", "schemas", statusRef)
	if get(status, "required") != nil || get(status, "properties", "details", "allOf") == nil {
		t.Errorf("Status = %v", status)
	}
	if get(doc, "components", "schemas", metaPrefix+"FieldsV1", "x-kubernetes-preserve-unknown-fields") != true {
		t.Error("FieldsV1 does not preserve unknown fields")
	}
}

func TestDeterministic(t *testing.T) {
	a, err := Document(group, version, []Kind{widgetKind(t), gadgetKind(t)})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		b, err := Document(group, version, []Kind{widgetKind(t), gadgetKind(t)})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatal("two builds of the same document differ")
		}
	}
}
