package patch_test

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/schema"
	smd "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// atomAt follows field names from the root of a parseable type, stepping
// through list elements.
func atomAt(t *testing.T, pt typed.ParseableType, path ...string) smd.Atom {
	t.Helper()
	a, ok := pt.Schema.Resolve(pt.TypeRef)
	if !ok {
		t.Fatal("root does not resolve")
	}
	for _, name := range path {
		for a.Map == nil && a.List != nil {
			if a, ok = pt.Schema.Resolve(a.List.ElementType); !ok {
				t.Fatalf("%v: list element does not resolve", path)
			}
		}
		if a.Map == nil {
			t.Fatalf("%v: %s is not in a map", path, name)
		}
		f, found := a.Map.FindField(name)
		ref := f.Type
		if !found {
			ref = a.Map.ElementType
		}
		if a, ok = pt.Schema.Resolve(ref); !ok {
			t.Fatalf("%v: %s does not resolve", path, name)
		}
	}
	return a
}

func TestSMDSchemaWidget(t *testing.T) {
	pt, err := patch.SMDSchema(widgetSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	list := func(path ...string) smd.List {
		a := atomAt(t, pt, path...)
		if a.List == nil {
			t.Fatalf("%v is not a list", path)
		}
		return *a.List
	}
	if l := list("spec", "ports"); l.ElementRelationship != smd.Associative {
		t.Errorf("ports %+v", l)
	} else if diff := cmp.Diff([]string{"name"}, l.Keys); diff != "" {
		t.Errorf("ports keys (-want +got):\n%s", diff)
	}
	if l := list("spec", "tags"); l.ElementRelationship != smd.Associative || l.Keys != nil {
		t.Errorf("tags %+v", l)
	}
	if l := list("status", "conditions"); l.ElementRelationship != smd.Associative {
		t.Errorf("conditions %+v", l)
	} else if diff := cmp.Diff([]string{"type"}, l.Keys); diff != "" {
		t.Errorf("conditions keys (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"uid"}, list("metadata", "ownerReferences").Keys); diff != "" {
		t.Errorf("ownerReferences keys (-want +got):\n%s", diff)
	}
	if l := list("metadata", "managedFields"); l.ElementRelationship != smd.Atomic {
		t.Errorf("managedFields %+v", l)
	}
	if s := atomAt(t, pt, "spec", "replicas").Scalar; s == nil || *s != smd.Numeric {
		t.Errorf("replicas %v", s)
	}
	if s := atomAt(t, pt, "status", "conditions", "lastTransitionTime").Scalar; s == nil || *s != smd.Untyped {
		t.Errorf("date-time %v", s)
	}
	if m := atomAt(t, pt, "metadata", "labels").Map; m == nil || m.ElementRelationship != "" {
		t.Errorf("labels %+v", m)
	}
	if f := atomAt(t, pt, "spec", "ports", "protocol").Scalar; f == nil || *f != smd.String {
		t.Errorf("protocol %v", f)
	}
}

type shapes struct {
	Kind       string            `json:"kind"`
	APIVersion string            `json:"apiVersion"`
	Free       map[string]any    `json:"free,omitempty"`
	Any        any               `json:"any,omitempty"`
	Atomic     map[string]string `json:"atomic,omitempty" mapType:"atomic"`
	Struct     *struct {
		A string `json:"a,omitempty"`
	} `json:"struct,omitempty" mapType:"atomic"`
	Merge []string `json:"merge,omitempty" patchStrategy:"merge"`
	Keyed []struct {
		N string `json:"n"`
	} `json:"keyed,omitempty" patchStrategy:"merge" patchMergeKey:"n"`
	Plain  []string   `json:"plain,omitempty"`
	Nested [][]string `json:"nested,omitempty"`
}

func TestSMDSchemaShapes(t *testing.T) {
	s, err := schema.FromType(reflect.TypeFor[shapes]())
	if err != nil {
		t.Fatal(err)
	}
	pt, err := patch.SMDSchema(s)
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]any{
		"kind": "Shapes", "apiVersion": "v1",
		"metadata": map[string]any{"name": "x"},
		"free":     map[string]any{"a": map[string]any{"b": int64(1)}, "l": []any{int64(1)}},
		"any":      map[string]any{"x": []any{"y"}},
		"atomic":   map[string]any{"k": "v"},
		"struct":   map[string]any{"a": "b"},
		"merge":    []any{"a"},
		"keyed":    []any{map[string]any{"n": "k"}},
		"plain":    []any{"p"},
		"nested":   []any{[]any{"q"}},
	}
	tv, err := pt.FromUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	set, err := tv.ToFieldSet()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := set.ToJSON()
	// Free-form maps are granular all the way down, lists atomic; atomic
	// maps and structs are leaves; patch strategies make sets and maps.
	const want = `{"f:any":{"f:x":{}},"f:apiVersion":{},"f:atomic":{},"f:free":{"f:a":{".":{},"f:b":{}},"f:l":{}},"f:keyed":{"k:{\"n\":\"k\"}":{".":{},"f:n":{}}},"f:kind":{},"f:merge":{"v:\"a\"":{}},"f:metadata":{"f:name":{}},"f:nested":{},"f:plain":{},"f:struct":{}}`
	if string(b) != want {
		t.Errorf("field set %s\nwant        %s", b, want)
	}
	if _, err := pt.FromUnstructured(map[string]any{"kind": "x", "bogus": int64(1)}); err == nil {
		t.Error("a field outside the schema parsed")
	}
}

func TestSMDSchemaNil(t *testing.T) {
	pt, err := patch.SMDSchema(nil)
	if err != nil {
		t.Fatal(err)
	}
	tv, err := pt.FromUnstructured(map[string]any{"a": map[string]any{"b": []any{int64(1)}}})
	if err != nil {
		t.Fatal(err)
	}
	set, _ := tv.ToFieldSet()
	if b, _ := set.ToJSON(); string(b) != `{"f:a":{".":{},"f:b":{}}}` {
		t.Errorf("deduced field set %s", b)
	}
}
