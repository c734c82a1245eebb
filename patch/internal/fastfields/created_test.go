package fastfields_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kapi-dev/kapi/patch/internal/fastfields"
	"github.com/kapi-dev/kapi/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// sameCreate records a create of doc through subresource sub both by the
// walk and by the Updater (an update of the empty object, as the field
// manager's general path records a create) and fails unless the walk
// declines or gives the Updater's set; it declines whenever the Updater
// rejects the object, and CreatedJSON declines whenever it does. It
// reports whether the walk answered.
func sameCreate(t testing.TB, k *kind, doc []byte, sub string) bool {
	t.Helper()
	obj := decode(t, doc)
	got, ok := k.fast.Created(obj, k.filters[sub])
	want, err := k.general(map[string]any{}, obj, fieldpath.ManagedFields{}, sub)
	if !ok {
		if js, answered := k.fast.CreatedJSON(nil, obj, k.resets[sub], stripNames(t)); answered {
			t.Fatalf("create of %s (subresource %q): Created declines, CreatedJSON writes %s", doc, sub, js)
		}
		return false
	}
	if err != nil {
		js, _ := got.ToJSON()
		t.Fatalf("create of %s (subresource %q): the walk gives %s, the Updater fails: %v", doc, sub, js, err)
	}
	ws := &fieldpath.Set{}
	if vs, ok := want[op]; ok {
		ws = vs.Set()
	}
	if !got.Equals(ws) {
		gj, _ := got.ToJSON()
		wj, _ := ws.ToJSON()
		t.Fatalf("create of %s (subresource %q):\nwalk    %s\nUpdater %s", doc, sub, gj, wj)
	}
	sameCreatedJSON(t, k, obj, sub, got)
	return true
}

// sameCreatedJSON fails unless CreatedJSON declines obj or gives the
// encoding of set, the create's set, less the stripped fields. It reports
// whether CreatedJSON answered.
func sameCreatedJSON(t testing.TB, k *kind, obj map[string]any, sub string, set *fieldpath.Set) bool {
	t.Helper()
	want, err := set.Difference(strip).ToJSON()
	if err != nil {
		t.Fatal(err)
	}
	got, ok := k.fast.CreatedJSON([]byte("x"), obj, k.resets[sub], stripNames(t))
	if !ok {
		return false
	}
	if string(got) != "x"+string(want) {
		t.Fatalf("create of %v (subresource %q):\nwritten %s\nencoded x%s", obj, sub, got, want)
	}
	sameCreatedJSONMeta(t, k, obj, sub, got)
	return true
}

// sameCreatedJSONMeta fails unless CreatedJSONMeta, given obj's metadata
// typed and obj with a metadata of its name only, writes want, what
// CreatedJSON writes for obj (after "x"), when obj's metadata holds
// only what it takes.
func sameCreatedJSONMeta(t testing.TB, k *kind, obj map[string]any, sub string, want []byte) {
	t.Helper()
	md, ok := typedMetadata(obj)
	if !ok {
		return
	}
	slim := maps.Clone(obj)
	slim["metadata"] = map[string]any{"name": "n"}
	got, ok := k.fast.CreatedJSONMeta([]byte("x"), slim, md, k.resets[sub], stripNames(t))
	if !ok || string(got) != string(want) {
		t.Fatalf("create of %v (subresource %q) from typed metadata:\nwritten %s (%v)\nwant    %s", obj, sub, got, ok, want)
	}
}

// typedMetadata is obj's metadata as CreatedJSONMeta takes it, when it
// holds nothing but the fields it takes and those the field manager
// strips.
func typedMetadata(obj map[string]any) (*fastfields.Metadata, bool) {
	m, ok := obj["metadata"].(map[string]any)
	if !ok {
		return nil, false
	}
	strs := func(v any) (map[string]string, bool) {
		x, ok := v.(map[string]any)
		out := map[string]string{}
		for k, e := range x {
			if out[k], ok = e.(string); !ok {
				return nil, false
			}
		}
		return out, ok && len(x) > 0 // a typed object's JSON leaves an empty map out
	}
	md := &fastfields.Metadata{}
	for k, v := range m {
		switch k {
		case "name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp", "selfLink", "managedFields":
		case "generateName":
			if md.GenerateName, ok = v.(string); !ok || md.GenerateName == "" {
				return nil, false
			}
		case "labels":
			if md.Labels, ok = strs(v); !ok {
				return nil, false
			}
		case "annotations":
			if md.Annotations, ok = strs(v); !ok {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return md, true
}

func TestCreatedMatchesUpdater(t *testing.T) {
	w, th, none := newKind(t, widgetSchema(t)), newKind(t, thingSchema()), newKind(t, nil)
	const head = `"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns","uid":"u","creationTimestamp":"2024-05-06T07:08:09Z"}`
	tests := []struct {
		name        string
		kind        *kind
		doc         string
		subresource string
		general     bool // the walk hands the object to the general path
	}{
		{name: "the 1.9 KB Widget", kind: w, doc: string(widgetDoc())},
		{name: "metadata only", kind: w, doc: `{` + head + `}`},
		{name: "labels, finalizers, owner", kind: w,
			doc: `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"a":"b"},"finalizers":["x","y"],"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":"1"}]}}`},
		{name: "nulls and empties", kind: w,
			doc: `{` + head + `,"spec":{"replicas":null,"tags":[],"ports":null,"color":""},"metadata":{"labels":{}}}`},
		{name: "empty spec", kind: w, doc: `{` + head + `,"spec":{}}`},
		{name: "status is reset on the main resource", kind: w,
			doc: `{` + head + `,"spec":{"color":"red"},"status":{"readyReplicas":1}}`},
		{name: "spec is reset on status", kind: w, subresource: "status",
			doc: `{` + head + `,"spec":{"color":"red"},"status":{"readyReplicas":1,"conditions":[{"type":"Ready","status":"True"}]}}`},
		{name: "another apiVersion", kind: w,
			doc: `{"apiVersion":"v9","kind":"Other","metadata":{"name":"w"},"spec":{"size":"s"}}`},
		{name: "undeclared field", general: true, kind: w, doc: `{` + head + `,"spec":{"bogus":1}}`},
		{name: "wrong scalar type", general: true, kind: w, doc: `{` + head + `,"spec":{"replicas":"3"}}`},
		{name: "object where a scalar goes", general: true, kind: w, doc: `{` + head + `,"spec":{"color":{"a":1}}}`},
		{name: "duplicate port", general: true, kind: w,
			doc: `{` + head + `,"spec":{"ports":[{"name":"a","port":1},{"name":"a","port":2}]}}`},
		{name: "duplicate tag", general: true, kind: w, doc: `{` + head + `,"spec":{"tags":["a","b","a"]}}`},
		{name: "port without its key", general: true, kind: w, doc: `{` + head + `,"spec":{"ports":[{"port":1}]}}`},
		{name: "null port", general: true, kind: w, doc: `{` + head + `,"spec":{"ports":[null]}}`},
		{name: "object in a set", general: true, kind: w, doc: `{` + head + `,"spec":{"tags":[{"a":1}]}}`},
		{name: "escaped keys and values", kind: w,
			doc: `{` + head + `,"spec":{"tags":["<a&b>","\u2028","é"],"ports":[{"name":"\"q\"","port":1}]},"metadata":{"labels":{"a/b.c~d":"x"}}}`},
		{name: "atomic map, list, untyped and preserved values", kind: th,
			doc: `{` + head + `,"spec":{"atomicMap":{"a":"x","b":2},"atomicList":[{"x":"1"},{"x":"1"}],"numbers":[1,2.5,-3],"pairs":[{"a":"x","b":1,"v":true},{"a":"x","b":2}],"any":{"q":[1,{"r":null}]},"free":{"z":{"y":[]}},"ios":"80%","when":"2024-01-01T00:00:00Z","flag":false,"labels":{"k":"v"}}}`},
		{name: "bad value inside an atomic map", general: true, kind: th, doc: `{` + head + `,"spec":{"atomicMap":{"a":1}}}`},
		{name: "undeclared field inside an atomic list", general: true, kind: th, doc: `{` + head + `,"spec":{"atomicList":[{"y":"1"}]}}`},
		{name: "no schema", kind: none,
			doc: `{` + head + `,"spec":{"a":{"b":[1,{"c":2}]},"d":null,"e":{}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if fast := sameCreate(t, tc.kind, js(t, tc.doc), tc.subresource); fast == tc.general {
				t.Errorf("walk answered: %v, want %v", fast, !tc.general)
			}
		})
	}
}

// TestCreatedRandom compares the two paths on random objects of the
// Widget and of a schema with every list and map kind, most of them valid
// and some with values of the wrong type, unknown fields, duplicates,
// nulls and empties.
func TestCreatedRandom(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for _, s := range randomCases(t, 7) {
		k, g, root := s.k, s.g, s.root
		fastCount := 0
		for i := 0; i < n; i++ {
			obj := g.object(root, 0)
			obj["apiVersion"], obj["kind"] = "stable.example.com/v1", "Widget"
			obj["metadata"] = map[string]any{"name": fmt.Sprint("w", i), "labels": g.labels()}
			doc, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			for _, sub := range []string{"", "status"} {
				if sameCreate(t, k, doc, sub) && sub == "" {
					fastCount++
				}
			}
		}
		// Most objects are valid: the comparison must cover the fast path.
		if fastCount < n/4 {
			t.Errorf("%s: %d of %d objects took the fast path", s.name, fastCount, n)
		}
		t.Logf("%s: %d of %d objects took the fast path", s.name, fastCount, n)
	}
}

func FuzzCreated(f *testing.F) {
	f.Add(widgetDoc())
	f.Add([]byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"ports":[{"name":"a","port":1},{"name":"a"}],"tags":["x",1]}}`))
	f.Add([]byte(`{"spec":{"atomicMap":{"a":"x"},"pairs":[{"a":"x","b":1}],"any":[1,{}],"numbers":[1,1]},"status":null}`))
	w, th := newKind(f, widgetSchema(f)), newKind(f, thingSchema())
	f.Fuzz(func(t *testing.T, doc []byte) {
		var m map[string]any
		if json.Unmarshal(doc, &m) != nil || m == nil {
			return
		}
		for _, sub := range []string{"", "status"} {
			sameCreate(t, w, doc, sub)
			sameCreate(t, th, doc, sub)
		}
	})
}

// thingSchema declares every kind of list and map server-side apply
// distinguishes.
func thingSchema() *schema.Schema {
	str := func() *schema.Schema { return &schema.Schema{Type: "string"} }
	integer := func() *schema.Schema { return &schema.Schema{Type: "integer"} }
	return &schema.Schema{Type: "object", Properties: map[string]*schema.Schema{
		"spec": {Type: "object", Properties: map[string]*schema.Schema{
			"atomicMap":  {Type: "object", XMapType: "atomic", Properties: map[string]*schema.Schema{"a": str(), "b": integer()}},
			"labels":     {Type: "object", AdditionalProperties: str()},
			"atomicList": {Type: "array", Items: &schema.Schema{Type: "object", Properties: map[string]*schema.Schema{"x": str()}}},
			"numbers":    {Type: "array", XListType: "set", Items: &schema.Schema{Type: "number"}},
			"pairs": {Type: "array", XListType: "map", XListMapKeys: []string{"a", "b"}, Items: &schema.Schema{Type: "object",
				Properties: map[string]*schema.Schema{"a": str(), "b": integer(), "v": {Type: "boolean"}}}},
			// Keys declared out of name order: names list them sorted.
			"rpairs": {Type: "array", XListType: "map", XListMapKeys: []string{"b", "a"}, Items: &schema.Schema{Type: "object",
				Properties: map[string]*schema.Schema{"a": str(), "b": integer()}}},
			"any":  {XPreserveUnknownFields: true},
			"free": {Type: "object", XPreserveUnknownFields: true},
			"ios":  {XIntOrString: true},
			"when": {Type: "string", Format: "date-time"},
			"flag": {Type: "boolean"},
		}},
		"status": {Type: "object", Properties: map[string]*schema.Schema{"n": integer()}},
	}}
}

// randomCase is one schema the random comparisons run on: the kind made
// from it, a generator seeded for the test, and the schema the objects
// are made from (an object with a spec, for the kind without a schema).
type randomCase struct {
	name string
	k    *kind
	g    *randomObjects
	root *schema.Schema
}

// randomCases returns the cases of the Widget's schema, a hand-written
// one and none, their generators seeded with seed and the case's name.
func randomCases(t *testing.T, seed uint64) []randomCase {
	var cases []randomCase
	for _, s := range []struct {
		name   string
		schema *schema.Schema
	}{{"widget", widgetSchema(t)}, {"thing", thingSchema()}, {"none", nil}} {
		root := s.schema
		if root == nil {
			root = &schema.Schema{Type: "object", Properties: map[string]*schema.Schema{"spec": {}}}
		}
		g := &randomObjects{rng: rand.New(rand.NewPCG(seed, uint64(len(s.name))))}
		cases = append(cases, randomCase{name: s.name, k: newKind(t, s.schema), g: g, root: root})
	}
	return cases
}

// randomObjects builds random values that mostly follow a schema.
type randomObjects struct{ rng *rand.Rand }

func (g *randomObjects) chance(pct int) bool { return g.rng.IntN(100) < pct }

func (g *randomObjects) labels() map[string]any {
	out := map[string]any{}
	for i := g.rng.IntN(3); i > 0; i-- {
		out[fmt.Sprint("l", g.rng.IntN(4))] = "v"
	}
	return out
}

// object returns a random map for an object schema.
func (g *randomObjects) object(s *schema.Schema, depth int) map[string]any {
	out := map[string]any{}
	// Sorted names keep a seed's objects the same from run to run.
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if g.chance(60) {
			out[name] = g.value(s.Properties[name], depth+1)
		}
	}
	if g.chance(3) {
		out["unknown"] = g.any(depth + 1)
	}
	if s.AdditionalProperties != nil || s.XPreserveUnknownFields || len(s.Properties) == 0 {
		for i := g.rng.IntN(3); i > 0; i-- {
			var v any = g.any(depth + 1)
			if s.AdditionalProperties != nil {
				v = g.value(s.AdditionalProperties, depth+1)
			}
			out[fmt.Sprint("k", g.rng.IntN(5))] = v
		}
	}
	return out
}

// value returns a random value for s: of its type, or now and then null
// or a value of any type.
func (g *randomObjects) value(s *schema.Schema, depth int) any {
	switch {
	case g.chance(4):
		return nil
	case g.chance(3), depth > 6:
		return g.any(depth)
	}
	switch s.Type {
	case "object":
		return g.object(s, depth)
	case "array":
		out := []any{}
		for i := g.rng.IntN(4); i > 0; i-- {
			out = append(out, g.value(s.Items, depth+1))
		}
		return out
	case "string":
		return []string{"a", "b", "c", "<&>", ""}[g.rng.IntN(5)]
	case "integer":
		return int64(g.rng.IntN(3))
	case "number":
		return []any{int64(1), 2.5, int64(1), -0.5}[g.rng.IntN(4)]
	case "boolean":
		return g.chance(50)
	}
	return g.any(depth)
}

// any returns a random JSON value.
func (g *randomObjects) any(depth int) any {
	switch n := g.rng.IntN(7); {
	case n == 0 || depth > 6:
		return nil
	case n == 1:
		return "s"
	case n == 2:
		return int64(g.rng.IntN(3))
	case n == 3:
		return g.chance(50)
	case n == 4:
		return 1.5
	case n == 5:
		out := []any{}
		for i := g.rng.IntN(3); i > 0; i-- {
			out = append(out, g.any(depth+1))
		}
		return out
	}
	out := map[string]any{}
	for i := g.rng.IntN(3); i > 0; i-- {
		out[fmt.Sprint("k", g.rng.IntN(3))] = g.any(depth + 1)
	}
	return out
}

// TestCreatedJSON wants CreatedJSON to answer, with the set's encoding,
// for objects whose names, keys and set values need no escaping, and to
// decline the others.
func TestCreatedJSON(t *testing.T) {
	w, th, none := newKind(t, widgetSchema(t)), newKind(t, thingSchema()), newKind(t, nil)
	const head = `"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns","uid":"u","generation":1}`
	// A kind resetting a field inside spec, so that a spec of only that
	// field is a member with nothing below.
	deep := newKind(t, widgetSchema(t))
	color := fieldpath.NewSet(fieldpath.MakePathOrDie("spec", "color"))
	deep.filters[""] = fieldpath.NewExcludeSetFilter(color)
	if deep.resets[""], _ = fastfields.NamesOf(color); deep.resets[""] == nil {
		t.Fatal("no names")
	}
	tests := []struct {
		name     string
		kind     *kind
		doc, sub string
		declines bool
	}{
		{name: "the 1.9 KB Widget", kind: w, doc: string(widgetDoc())},
		{name: "stripped metadata only", kind: w, doc: `{` + head + `}`},
		{name: "nothing recorded", kind: w, doc: `{"metadata":{"name":"w"}}`},
		{name: "labels, finalizers, owner", kind: w,
			doc: `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","labels":{"a":"b"},"finalizers":["x","y"],"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"o","uid":"1"}]}}`},
		{name: "nulls and empties", kind: w, doc: `{` + head + `,"spec":{"replicas":null,"tags":[],"ports":null,"color":""},"metadata":{"labels":{}}}`},
		{name: "status reset", kind: w, doc: `{` + head + `,"spec":{"color":"red"},"status":{"readyReplicas":1}}`},
		{name: "only status, reset", kind: w, doc: `{"status":{"readyReplicas":1}}`},
		{name: "spec reset on status", kind: w, sub: "status",
			doc: `{` + head + `,"spec":{"color":"red"},"status":{"readyReplicas":1,"conditions":[{"type":"Ready","status":"True"}]}}`},
		{name: "numeric keys and set values", kind: th,
			doc: `{` + head + `,"spec":{"numbers":[3,1,20],"pairs":[{"a":"x","b":10},{"a":"x","b":9},{"a":"w","b":2}]}}`},
		{name: "keys declared out of name order", kind: th,
			doc: `{` + head + `,"spec":{"rpairs":[{"a":"x","b":10},{"a":"y","b":9},{"a":"w","b":9}]}}`},
		{name: "negative set values", kind: th, doc: `{` + head + `,"spec":{"numbers":[3,-1,-20]}}`},
		{name: "atomic and untyped values", kind: th,
			doc: `{` + head + `,"spec":{"atomicMap":{"a":"x","b":2},"atomicList":[{"x":"1"},{"x":"1"}],"any":{"q":[1,{"r":null}]},"free":{"z":{"y":[]}},"flag":false}}`},
		{name: "no schema", kind: none, doc: `{` + head + `,"spec":{"a":{"b":[1,{"c":2}]},"d":null,"e":{}}}`},
		{name: "a member with everything below it reset", kind: deep, doc: `{` + head + `,"spec":{"color":"red"}}`},
		{name: "a member with part of what is below it reset", kind: deep, doc: `{` + head + `,"spec":{"color":"red","size":"s"}}`},
		{name: "escaped name", kind: w, declines: true, doc: `{` + head + `,"metadata":{"labels":{"a<b":"x"}}}`},
		{name: "escaped key", kind: w, declines: true, doc: `{` + head + `,"spec":{"ports":[{"name":"\"q\"","port":1}]}}`},
		{name: "escaped set value", kind: w, declines: true, doc: `{` + head + `,"spec":{"tags":["é"]}}`},
		{name: "float set value", kind: th, declines: true, doc: `{` + head + `,"spec":{"numbers":[2.5]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := decode(t, js(t, tc.doc))
			set, ok := tc.kind.fast.Created(obj, tc.kind.filters[tc.sub])
			if !ok {
				t.Fatal("Created declines the object")
			}
			if answered := sameCreatedJSON(t, tc.kind, obj, tc.sub, set); answered == tc.declines {
				t.Errorf("answered %v, want %v", answered, !tc.declines)
			}
		})
	}
}
