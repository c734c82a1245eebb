package patch_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/schema"
)

// updatePair returns two patchers of one kind, the first with the update
// fast path, the second with the general (structured-merge-diff) path
// for creates and updates.
func updatePair(t testing.TB, s *schema.Schema) (fast, general *patch.Patcher) {
	fast, general = createPair(t, s)
	patch.SetGeneralUpdate(general.FieldManager, true)
	return fast, general
}

// sameUpdate records an update of live to doc by manager through both
// paths and fails unless the entries (byte for byte) and the errors are
// the same. It returns the entries.
func sameUpdate(t testing.TB, fast, general *patch.Patcher, live, doc []byte, manager, subresource string, liveManaged, sent []meta.ManagedFieldsEntry) []meta.ManagedFieldsEntry {
	t.Helper()
	got, gotErr := fast.Update(live, doc, manager, subresource, liveManaged, sent)
	want, wantErr := general.Update(live, doc, manager, subresource, liveManaged, sent)
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if !bytes.Equal(gb, wb) || (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("update of\n%s\nto\n%s\n(subresource %q) with\n%s\nfast    %s (%v)\ngeneral %s (%v)",
			live, doc, subresource, fieldsOf(liveManaged), gb, gotErr, wb, wantErr)
	}
	return got
}

// mfEntry is a managedFields entry for tests.
func mfEntry(manager string, op meta.ManagedFieldsOperationType, apiVersion, sub, fields string) meta.ManagedFieldsEntry {
	return meta.ManagedFieldsEntry{Manager: manager, Operation: op, APIVersion: apiVersion, Subresource: sub,
		FieldsType: patch.FieldsTypeV1, FieldsV1: &meta.FieldsV1{Raw: []byte(fields)}}
}

func TestUpdatedFieldsMatchStructuredMergeDiff(t *testing.T) {
	wfast, wgeneral := updatePair(t, widgetSchema(t))
	tfast, tgeneral := updatePair(t, thingSchema())
	nfast, ngeneral := updatePair(t, nil)
	const head = `"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns","uid":"u","labels":{"a":"1"}}`
	const v1 = "stable.example.com/v1"
	update, apply := meta.ManagedFieldsOperationUpdate, meta.ManagedFieldsOperationApply
	owners := []meta.ManagedFieldsEntry{
		mfEntry("applier", apply, v1, "", `{"f:spec":{"f:color":{},"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}}}}`),
		mfEntry("creator", update, v1, "", `{"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{".":{},"f:replicas":{},"f:size":{},"f:tags":{"v:\"x\"":{}},"f:ports":{"k:{\"name\":\"https\"}":{".":{},"f:name":{},"f:port":{}}}}}`),
		mfEntry("old", update, "stable.example.com/v0", "", `{"f:spec":{"f:color":{}}}`),
		mfEntry("statuser", update, v1, "status", `{"f:status":{"f:readyReplicas":{}}}`),
		mfEntry("empty", update, v1, "", `{}`),
	}
	tests := []struct {
		name        string
		fast, gen   *patch.Patcher
		live, doc   string
		manager     string
		subresource string
		managed     []meta.ManagedFieldsEntry
		general     bool // the fast path hands the update to the general one
	}{
		{name: "the 1.9 KB Widget scaled", fast: wfast, gen: wgeneral, managed: owners,
			live: string(widgetDoc()), doc: `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"widget-0001","namespace":"default","uid":"6f1c2a8e-3b0d-4c1e-9a57-2f8d1e4b7c90"},"spec":{"replicas":4,"ports":[{"name":"http","port":8080}]}}`},
		{name: "no change", fast: wfast, gen: wgeneral, managed: owners,
			live: `{` + head + `,"spec":{"replicas":1,"color":"red"}}`, doc: `{` + head + `,"spec":{"replicas":1,"color":"red"}}`},
		{name: "change taken from owners", fast: wfast, gen: wgeneral, managed: owners, manager: "creator",
			live: `{` + head + `,"spec":{"replicas":1,"color":"red","ports":[{"name":"http","port":80},{"name":"https","port":443}]}}`,
			doc:  `{` + head + `,"spec":{"replicas":2,"color":"blue","ports":[{"name":"https","port":444},{"name":"http","port":80}]}}`},
		{name: "removal taken from everyone", fast: wfast, gen: wgeneral, managed: owners,
			live: `{` + head + `,"spec":{"replicas":1,"size":"s","tags":["x","y"],"ports":[{"name":"http","port":80},{"name":"https","port":443}]}}`,
			doc:  `{` + head + `,"spec":{"replicas":1,"tags":["y","z"],"ports":[{"name":"http","port":80,"protocol":"UDP"}]}}`},
		{name: "spec removed", fast: wfast, gen: wgeneral, managed: owners,
			live: `{` + head + `,"spec":{"replicas":1,"ports":[{"name":"http","port":80}]}}`, doc: `{` + head + `}`},
		{name: "spec added", fast: wfast, gen: wgeneral, managed: owners[:1],
			live: `{` + head + `}`, doc: `{` + head + `,"spec":{"tags":["a"],"ports":[{"name":"http","port":80}]}}`},
		{name: "nulls and empties", fast: wfast, gen: wgeneral, managed: owners,
			live: `{` + head + `,"spec":{"replicas":null,"tags":[],"ports":null,"color":""}}`,
			doc:  `{` + head + `,"spec":{"replicas":2,"tags":null,"ports":[],"size":null},"metadata":{"labels":{}}}`},
		{name: "null to map and back", fast: wfast, gen: wgeneral, managed: owners,
			live: `{` + head + `,"spec":null,"status":{}}`, doc: `{` + head + `,"spec":{"color":"x"},"status":null}`},
		{name: "status ignored on the main resource", fast: wfast, gen: wgeneral, managed: owners,
			live: `{` + head + `,"status":{"readyReplicas":1}}`, doc: `{` + head + `,"status":{"readyReplicas":2,"selector":"s"}}`},
		{name: "status subresource", fast: wfast, gen: wgeneral, managed: owners, subresource: "status", manager: "statuser",
			live: `{` + head + `,"spec":{"color":"a"},"status":{"readyReplicas":1}}`,
			doc:  `{` + head + `,"spec":{"color":"b"},"status":{"conditions":[{"type":"Ready","status":"True"}]}}`},
		{name: "integer and float equal", fast: tfast, gen: tgeneral,
			managed: []meta.ManagedFieldsEntry{mfEntry("c", update, v1, "", `{"f:spec":{"f:numbers":{"v:1":{}},"f:ios":{}}}`)},
			live:    `{` + head + `,"spec":{"numbers":[1,2.5],"ios":1,"any":1}}`, doc: `{` + head + `,"spec":{"numbers":[1.0,2.5],"ios":1.0,"any":1.0}}`},
		{name: "atomic map, list and untyped values", fast: tfast, gen: tgeneral, managed: owners,
			live: `{` + head + `,"spec":{"atomicMap":{"a":"x"},"atomicList":[{"x":"1"}],"any":{"q":[1]},"free":{"z":{"y":[1]},"w":1},"pairs":[{"a":"x","b":1,"v":true}]}}`,
			doc:  `{` + head + `,"spec":{"atomicMap":{"a":"y","b":1},"atomicList":[{"x":"1"},{"x":"2"}],"any":{"q":[2]},"free":{"z":{"y":[2]},"v":{}},"pairs":[{"a":"x","b":1,"v":false},{"a":"x","b":2}]}}`},
		{name: "schema made a granular owner atomic", fast: tfast, gen: tgeneral,
			managed: []meta.ManagedFieldsEntry{mfEntry("c", update, v1, "", `{"f:spec":{"f:atomicMap":{"f:a":{}},"f:atomicList":{"k:{\"x\":\"1\"}":{}}}}`)},
			live:    `{` + head + `,"spec":{"atomicMap":{"a":"x"},"atomicList":[{"x":"1"}]}}`, doc: `{` + head + `,"spec":{"atomicMap":{"a":"x"},"atomicList":[{"x":"1"}],"flag":true}}`},
		{name: "no schema", fast: nfast, gen: ngeneral, managed: owners,
			live: `{` + head + `,"spec":{"a":{"b":[1,{"c":2}]},"d":null,"e":{"f":1}}}`, doc: `{` + head + `,"spec":{"a":{"b":[1]},"e":{"f":2,"g":[]}}}`},
		{name: "untyped value changes kind", general: true, fast: tfast, gen: tgeneral, managed: owners,
			live: `{` + head + `,"spec":{"any":{"q":1}}}`, doc: `{` + head + `,"spec":{"any":"q"}}`},
		{name: "untyped null", general: true, fast: nfast, gen: ngeneral, managed: owners,
			live: `{` + head + `,"spec":{"a":null}}`, doc: `{` + head + `,"spec":{"a":{"b":1}}}`},
		{name: "undeclared field", general: true, fast: wfast, gen: wgeneral, managed: owners,
			live: `{` + head + `,"spec":{"bogus":1}}`, doc: `{` + head + `,"spec":{}}`},
		{name: "wrong scalar type in the new object", general: true, fast: wfast, gen: wgeneral, managed: owners,
			live: `{` + head + `,"spec":{"replicas":3}}`, doc: `{` + head + `,"spec":{"replicas":"3"}}`},
		{name: "duplicate port", general: true, fast: wfast, gen: wgeneral, managed: owners,
			live: `{` + head + `,"spec":{"ports":[{"name":"a","port":1},{"name":"a","port":2}]}}`, doc: `{` + head + `,"spec":{"ports":[{"name":"a","port":1}]}}`},
		{name: "duplicate tag", general: true, fast: wfast, gen: wgeneral, managed: owners,
			live: `{` + head + `,"spec":{"tags":["a"]}}`, doc: `{` + head + `,"spec":{"tags":["a","b","a"]}}`},
		{name: "port without its key", general: true, fast: wfast, gen: wgeneral, managed: owners,
			live: `{` + head + `,"spec":{"ports":[{"port":1}]}}`, doc: `{` + head + `,"spec":{"ports":[]}}`},
		{name: "bad value inside an atomic map", general: true, fast: tfast, gen: tgeneral, managed: owners,
			live: `{` + head + `,"spec":{"atomicMap":{"a":"x"}}}`, doc: `{` + head + `,"spec":{"atomicMap":{"a":1}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			live, doc := js(t, tc.live), js(t, tc.doc)
			manager := tc.manager
			if manager == "" {
				manager = "editor"
			}
			for _, sent := range [][]meta.ManagedFieldsEntry{nil, tc.managed} {
				sameUpdate(t, tc.fast, tc.gen, live, doc, manager, tc.subresource, tc.managed, sent)
			}
			if fast := patch.UpdatesFast(tc.fast.FieldManager, live, doc); fast == tc.general {
				t.Errorf("fast path taken: %v, want %v", fast, !tc.general)
			}
		})
	}
}

// TestUpdatedFieldsRandom compares the two paths on chains of random
// updates: random objects of the Widget, of a schema with every list and
// map kind and without a schema, each changed at random (fields set,
// replaced, removed, list entries added and dropped), written by a few
// managers in turn and now and then through /status.
func TestUpdatedFieldsRandom(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 200
	}
	managers := []string{"a", "b", "c"}
	for _, s := range []struct {
		name   string
		schema *schema.Schema
	}{{"widget", widgetSchema(t)}, {"thing", thingSchema()}, {"none", nil}} {
		fast, general := updatePair(t, s.schema)
		g := &randomObjects{rng: rand.New(rand.NewPCG(11, uint64(len(s.name))))}
		root := s.schema
		if root == nil {
			root = &schema.Schema{Type: "object", Properties: map[string]*schema.Schema{"spec": {}}}
		}
		fastCount := 0
		var live []byte
		var entries []meta.ManagedFieldsEntry
		for i := 0; i < n; i++ {
			if i%10 == 0 {
				obj := g.object(root, 0)
				stampObject(obj, g)
				live = mustJSON(t, obj)
				entries = sameCreate(t, fast, general, live, "", nil)
			}
			var obj map[string]any
			if err := json.Unmarshal(live, &obj); err != nil {
				t.Fatal(err)
			}
			g.mutate(obj, root, 0)
			stampObject(obj, g)
			doc := mustJSON(t, obj)
			sub := ""
			if g.chance(20) {
				sub = "status"
			}
			var sent []meta.ManagedFieldsEntry
			if g.chance(50) {
				sent = entries
			}
			if patch.UpdatesFast(fast.FieldManager, live, doc) {
				fastCount++
			}
			entries = sameUpdate(t, fast, general, live, doc, managers[g.rng.IntN(len(managers))], sub, entries, sent)
			live = doc
		}
		if fastCount < n/4 {
			t.Errorf("%s: %d of %d updates took the fast path", s.name, fastCount, n)
		}
		t.Logf("%s: %d of %d updates took the fast path", s.name, fastCount, n)
	}
}

func mustJSON(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stampObject gives a random object the identity of a stored Widget.
func stampObject(obj map[string]any, g *randomObjects) {
	obj["apiVersion"], obj["kind"] = "stable.example.com/v1", "Widget"
	obj["metadata"] = map[string]any{"name": "w", "uid": "u", "labels": g.labels()}
}

// mutate changes a decoded value of schema s at random, in place.
func (g *randomObjects) mutate(obj map[string]any, s *schema.Schema, depth int) {
	// Sorted keys keep a seed's objects the same from run to run.
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := obj[k]
		p := s.Properties[k]
		if p == nil {
			p = s.AdditionalProperties
		}
		switch {
		case g.chance(8):
			delete(obj, k)
		case g.chance(10) && p != nil:
			obj[k] = g.value(p, depth+1)
		case g.chance(3):
			obj[k] = g.any(depth + 1)
		default:
			obj[k] = g.mutateValue(v, p, depth+1)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		if _, ok := obj[name]; !ok && g.chance(15) {
			obj[name] = g.value(s.Properties[name], depth+1)
		}
	}
}

func (g *randomObjects) mutateValue(v any, s *schema.Schema, depth int) any {
	if s == nil {
		s = &schema.Schema{}
	}
	switch t := v.(type) {
	case map[string]any:
		g.mutate(t, s, depth)
		return t
	case []any:
		out := make([]any, 0, len(t)+1)
		for _, e := range t {
			if g.chance(15) {
				continue
			}
			if g.chance(30) && s.Items != nil {
				e = g.mutateValue(e, s.Items, depth+1)
			}
			out = append(out, e)
		}
		if g.chance(25) && s.Items != nil {
			out = append(out, g.value(s.Items, depth+1))
		}
		if g.chance(20) {
			g.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		}
		return out
	}
	if g.chance(30) {
		return g.value(s, depth)
	}
	return v
}

func FuzzUpdatedFields(f *testing.F) {
	f.Add(widgetDoc(), []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"widget-0001","uid":"x"},"spec":{"replicas":4,"ports":[{"name":"http","port":8080}]}}`))
	f.Add([]byte(`{"metadata":{"uid":"u"},"spec":{"tags":["a"],"ports":[{"name":"a","port":1}]}}`), []byte(`{"metadata":{"uid":"u"},"spec":{"tags":["b","a"],"ports":null},"status":{"readyReplicas":1}}`))
	f.Add([]byte(`{"metadata":{"uid":"u"},"spec":{"atomicMap":{"a":"x"},"pairs":[{"a":"x","b":1}],"any":[1,{}]}}`), []byte(`{"metadata":{"uid":"u"},"spec":{"atomicMap":{"b":2},"pairs":[{"a":"x","b":1,"v":true}],"any":[1,{}],"numbers":[1,1.5]}}`))
	wfast, wgeneral := updatePair(f, widgetSchema(f))
	tfast, tgeneral := updatePair(f, thingSchema())
	nfast, ngeneral := updatePair(f, nil)
	owners := []meta.ManagedFieldsEntry{
		mfEntry("a", meta.ManagedFieldsOperationApply, "stable.example.com/v1", "", `{"f:spec":{"f:replicas":{},"f:tags":{"v:\"a\"":{}},"f:atomicMap":{}}}`),
		mfEntry("b", meta.ManagedFieldsOperationUpdate, "stable.example.com/v1", "", `{"f:spec":{"f:ports":{"k:{\"name\":\"a\"}":{".":{},"f:port":{}}},"f:pairs":{}}}`),
	}
	f.Fuzz(func(t *testing.T, live, doc []byte) {
		for _, d := range [][]byte{live, doc} {
			var m map[string]any
			if json.Unmarshal(d, &m) != nil || m == nil {
				return
			}
		}
		for _, p := range [][2]*patch.Patcher{{wfast, wgeneral}, {tfast, tgeneral}, {nfast, ngeneral}} {
			for _, sub := range []string{"", "status"} {
				sameUpdate(t, p[0], p[1], live, doc, "m", sub, owners, nil)
			}
		}
	})
}

// The common case, a controller changing a field of the stored Widget,
// takes the fast path.
func TestUpdateFastPathTakenForWidget(t *testing.T) {
	fast, _ := updatePair(t, widgetSchema(t))
	doc := bytes.Replace(widgetDoc(), []byte(`"replicas":3`), []byte(`"replicas":4`), 1)
	if !patch.UpdatesFast(fast.FieldManager, widgetDoc(), doc) {
		t.Fatal("the update of the Widget takes the general path")
	}
}
