package openapi

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const widgets = "/apis/stable.example.com/v1/namespaces/{namespace}/widgets"

func TestPathsAndOperations(t *testing.T) {
	doc := decoded(t, widgetKind(t), gadgetKind(t))
	tests := []struct {
		path, method, id, action string
	}{
		{"/apis/stable.example.com/v1/widgets", "get", "listStableExampleComV1WidgetForAllNamespaces", "list"},
		{widgets, "get", "listStableExampleComV1NamespacedWidget", "list"},
		{widgets, "post", "createStableExampleComV1NamespacedWidget", "post"},
		{widgets, "delete", "deleteStableExampleComV1CollectionNamespacedWidget", "deletecollection"},
		{widgets + "/{name}", "get", "readStableExampleComV1NamespacedWidget", "get"},
		{widgets + "/{name}", "put", "replaceStableExampleComV1NamespacedWidget", "put"},
		{widgets + "/{name}", "patch", "patchStableExampleComV1NamespacedWidget", "patch"},
		{widgets + "/{name}", "delete", "deleteStableExampleComV1NamespacedWidget", "delete"},
		{widgets + "/{name}/status", "get", "readStableExampleComV1NamespacedWidgetStatus", "get"},
		{widgets + "/{name}/status", "put", "replaceStableExampleComV1NamespacedWidgetStatus", "put"},
		{widgets + "/{name}/status", "patch", "patchStableExampleComV1NamespacedWidgetStatus", "patch"},
		{widgets + "/{name}/scale", "get", "readStableExampleComV1NamespacedWidgetScale", "get"},
		{widgets + "/{name}/scale", "put", "replaceStableExampleComV1NamespacedWidgetScale", "put"},
		{widgets + "/{name}/scale", "patch", "patchStableExampleComV1NamespacedWidgetScale", "patch"},
		{"/apis/stable.example.com/v1/gadgets", "get", "listStableExampleComV1Gadget", "list"},
		{"/apis/stable.example.com/v1/gadgets", "post", "createStableExampleComV1Gadget", "post"},
		{"/apis/stable.example.com/v1/gadgets", "delete", "deleteStableExampleComV1CollectionGadget", "deletecollection"},
		{"/apis/stable.example.com/v1/gadgets/{name}", "get", "readStableExampleComV1Gadget", "get"},
		{"/apis/stable.example.com/v1/gadgets/{name}", "patch", "patchStableExampleComV1Gadget", "patch"},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			op := get(doc, "paths", tc.path, tc.method)
			if op == nil {
				t.Fatal("missing")
			}
			if get(op, "operationId") != tc.id || get(op, "x-kubernetes-action") != tc.action {
				t.Errorf("operationId %v action %v", get(op, "operationId"), get(op, "x-kubernetes-action"))
			}
			if diff := cmp.Diff([]any{"stableExampleCom_v1"}, get(op, "tags")); diff != "" {
				t.Errorf("tags (-want +got):\n%s", diff)
			}
		})
	}
	var paths []string
	for p := range get(doc, "paths").(map[string]any) {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	want := []string{
		"/apis/stable.example.com/v1/gadgets", "/apis/stable.example.com/v1/gadgets/{name}",
		widgets, widgets + "/{name}", widgets + "/{name}/scale", widgets + "/{name}/status",
		"/apis/stable.example.com/v1/widgets",
	}
	if !slices.Equal(paths, want) {
		t.Errorf("paths\n got %v\nwant %v", paths, want)
	}
}

func TestParameters(t *testing.T) {
	doc := decoded(t, widgetKind(t))
	names := func(v any) []string {
		var out []string
		list, _ := v.([]any)
		for _, p := range list {
			out = append(out, get(p, "name").(string))
		}
		return out
	}
	tests := []struct {
		name string
		at   any
		want []string
	}{
		{"item path", get(doc, "paths", widgets+"/{name}", "parameters"), []string{"name", "namespace", "pretty"}},
		{"collection path", get(doc, "paths", widgets, "parameters"), []string{"namespace", "pretty"}},
		{"patch", get(doc, "paths", widgets+"/{name}", "patch", "parameters"), []string{"dryRun", "fieldManager", "fieldValidation", "force"}},
		{"put", get(doc, "paths", widgets+"/{name}", "put", "parameters"), []string{"dryRun", "fieldManager", "fieldValidation"}},
		{"create", get(doc, "paths", widgets, "post", "parameters"), []string{"dryRun", "fieldManager", "fieldValidation"}},
		{"get", get(doc, "paths", widgets+"/{name}", "get", "parameters"), nil},
		{"delete", get(doc, "paths", widgets+"/{name}", "delete", "parameters"), []string{"dryRun", "gracePeriodSeconds", "orphanDependents", "propagationPolicy"}},
		{"list", get(doc, "paths", widgets, "get", "parameters"), []string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector",
			"limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"}},
		{"deletecollection", get(doc, "paths", widgets, "delete", "parameters"), []string{"continue", "dryRun", "fieldSelector", "gracePeriodSeconds",
			"labelSelector", "limit", "orphanDependents", "propagationPolicy", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds"}},
		// A single operation shares everything with its path.
		{"all namespaces", get(doc, "paths", "/apis/stable.example.com/v1/widgets", "parameters"), []string{"allowWatchBookmarks", "continue",
			"fieldSelector", "labelSelector", "limit", "pretty", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"}},
	}
	for _, tc := range tests {
		if got := names(tc.at); !slices.Equal(got, tc.want) {
			t.Errorf("%s: parameters %v, want %v", tc.name, got, tc.want)
		}
	}
	p := get(doc, "paths", widgets+"/{name}", "parameters").([]any)[0]
	if get(p, "in") != "path" || get(p, "required") != true || get(p, "schema", "type") != "string" {
		t.Errorf("name parameter %v", p)
	}
}

// TestPatchOnly keeps fieldValidation on the operation even when it is the
// only one of its path, where kubectl looks for it.
func TestPatchOnly(t *testing.T) {
	k := widgetKind(t)
	k.Verbs = []string{"patch"}
	k.Subresources = nil
	doc := decoded(t, k)
	item := get(doc, "paths", widgets+"/{name}")
	if !hasParam(get(item, "patch"), "fieldValidation", "query") {
		t.Errorf("fieldValidation moved off the operation: %v", item)
	}
	if n := len(get(doc, "paths").(map[string]any)); n != 1 {
		t.Errorf("%d paths for a patch-only kind", n)
	}
}

func TestContentTypes(t *testing.T) {
	keys := func(v any) []string {
		var out []string
		for k := range v.(map[string]any) {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	tests := []struct {
		name          string
		smp, protobuf bool
		verbs         []string
		patch, get    []string
		list          []string
	}{
		{"default", false, false, nil,
			[]string{"application/apply-patch+cbor", "application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"},
			[]string{"application/json", "application/yaml"},
			[]string{"application/json", "application/json;stream=watch", "application/yaml"}},
		{"strategic merge patch and protobuf", true, true, nil,
			[]string{"application/apply-patch+cbor", "application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"},
			[]string{"application/json", "application/vnd.kubernetes.protobuf", "application/yaml"},
			[]string{"application/json", "application/json;stream=watch", "application/vnd.kubernetes.protobuf",
				"application/vnd.kubernetes.protobuf;stream=watch", "application/yaml"}},
		{"no watch", false, false, []string{"get", "list", "patch"},
			[]string{"application/apply-patch+cbor", "application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"},
			[]string{"application/json", "application/yaml"},
			[]string{"application/json", "application/yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := widgetKind(t)
			k.StrategicMergePatch, k.Protobuf, k.Verbs = tc.smp, tc.protobuf, tc.verbs
			doc := decoded(t, k)
			item := get(doc, "paths", widgets+"/{name}")
			if got := keys(get(item, "patch", "requestBody", "content")); !slices.Equal(got, tc.patch) {
				t.Errorf("PATCH consumes %v, want %v", got, tc.patch)
			}
			if got := keys(get(item, "get", "responses", "200", "content")); !slices.Equal(got, tc.get) {
				t.Errorf("GET produces %v, want %v", got, tc.get)
			}
			if got := keys(get(doc, "paths", widgets, "get", "responses", "200", "content")); !slices.Equal(got, tc.list) {
				t.Errorf("list produces %v, want %v", got, tc.list)
			}
			if r := get(item, "patch", "requestBody", "content", "application/merge-patch+json", "schema", "$ref"); r != schemaRefPrefix+patchRef {
				t.Errorf("PATCH body schema %v", r)
			}
		})
	}
}

func TestResponses(t *testing.T) {
	doc := decoded(t, widgetKind(t))
	tests := []struct {
		path, method string
		codes        []string
		ref          string
	}{
		{widgets, "get", []string{"200", "401"}, "com.example.stable.v1.WidgetList"},
		{widgets, "post", []string{"200", "201", "202", "401"}, "com.example.stable.v1.Widget"},
		{widgets, "delete", []string{"200", "401"}, statusRef},
		{widgets + "/{name}", "put", []string{"200", "201", "401"}, "com.example.stable.v1.Widget"},
		{widgets + "/{name}", "patch", []string{"200", "201", "401"}, "com.example.stable.v1.Widget"},
		{widgets + "/{name}", "delete", []string{"200", "202", "401"}, statusRef},
		{widgets + "/{name}/scale", "get", []string{"200", "401"}, scaleRef},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			resp := get(doc, "paths", tc.path, tc.method, "responses").(map[string]any)
			var codes []string
			for c := range resp {
				codes = append(codes, c)
			}
			sort.Strings(codes)
			if !slices.Equal(codes, tc.codes) {
				t.Errorf("codes %v, want %v", codes, tc.codes)
			}
			if r := get(resp, "200", "content", "application/json", "schema", "$ref"); r != schemaRefPrefix+tc.ref {
				t.Errorf("200 schema %v, want %s", r, tc.ref)
			}
		})
	}
}

func TestCoreGroup(t *testing.T) {
	k := Kind{Version: "v1", Kind: "Thing", Resource: "things", Namespaced: true}
	b, err := Document("", "v1", []Kind{k})
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{
		`"/api/v1/namespaces/{namespace}/things/{name}"`, `"operationId":"patchCoreV1NamespacedThing"`,
		`"tags":["core_v1"]`, `"io.k8s.api.core.v1.Thing"`, `"x-kubernetes-preserve-unknown-fields":true`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("core document lacks %s", want)
		}
	}
}

func TestDocumentErrors(t *testing.T) {
	ok := func(t *testing.T) Kind { return widgetKind(t) }
	tests := []struct {
		name  string
		kinds func(t *testing.T) []Kind
		want  string
	}{
		{"other group", func(t *testing.T) []Kind { k := ok(t); k.Group = "other.io"; return []Kind{k} }, "other.io/v1"},
		{"no resource", func(t *testing.T) []Kind { k := ok(t); k.Resource = ""; return []Kind{k} }, "resource"},
		{"bad verb", func(t *testing.T) []Kind { k := ok(t); k.Verbs = []string{"exec"}; return []Kind{k} }, `"exec"`},
		{"bad subresource", func(t *testing.T) []Kind { k := ok(t); k.Subresources = []string{"log"}; return []Kind{k} }, `"log"`},
		{"duplicate", func(t *testing.T) []Kind { return []Kind{ok(t), ok(t)} }, "already used"},
		{"list kind clash", func(t *testing.T) []Kind {
			a, b := ok(t), gadgetKind(t)
			b.ListKind = "Widget"
			return []Kind{a, b}
		}, "already used"},
		{"array schema", func(t *testing.T) []Kind { k := ok(t); k.Schema.Type = "array"; return []Kind{k} }, "object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Document(group, version, tc.kinds(t))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one mentioning %s", err, tc.want)
			}
		})
	}
	if _, err := Document(group, "", nil); err == nil {
		t.Error("no error for an empty version")
	}
}
