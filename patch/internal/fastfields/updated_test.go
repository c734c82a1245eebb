package fastfields_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/patch/internal/fastfields"
	"github.com/kapi-dev/kapi/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// sameUpdate records an update of live to doc by op through subresource
// sub, from managers, both by the walk and by the Updater, and fails
// unless the walk declines or gives the Updater's managers; it declines
// whenever the Updater fails. It returns the Updater's managers (nil when
// it fails) and whether the walk answered.
func sameUpdate(t testing.TB, k *kind, live, doc []byte, managers fieldpath.ManagedFields, sub string) (fieldpath.ManagedFields, bool) {
	t.Helper()
	l, o := decode(t, live), decode(t, doc)
	got, ok := k.fast.Updated(l, o, copyManagers(managers), op, k.filters[sub])
	want, err := k.general(l, o, copyManagers(managers), sub)
	switch {
	case ok && err != nil:
		t.Fatalf("update of\n%s\nto\n%s\n(subresource %q): the walk gives\n%sthe Updater fails: %v", live, doc, sub, render(got), err)
	case ok && !got.Equals(want):
		t.Fatalf("update of\n%s\nto\n%s\n(subresource %q) with\n%swalk\n%sUpdater\n%s", live, doc, sub, render(managers), render(got), render(want))
	}
	return want, ok
}

// handOver gives op's set to manager, merged with what manager owns, as
// the field manager records an update under its manager.
func handOver(m fieldpath.ManagedFields, manager string) fieldpath.ManagedFields {
	vs, ok := m[op]
	if !ok {
		return m
	}
	delete(m, op)
	if prev, ok := m[manager]; ok {
		vs = fieldpath.NewVersionedSet(vs.Set().Union(prev.Set()), vs.APIVersion(), vs.Applied())
	}
	m[manager] = vs
	return m
}

func TestUpdatedMatchesUpdater(t *testing.T) {
	w, th, none := newKind(t, widgetSchema(t)), newKind(t, thingSchema()), newKind(t, nil)
	const head = `"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns","uid":"u","labels":{"a":"1"}}`
	const v1 = "stable.example.com/v1"
	owners := []entry{
		{"applier", v1, `{"f:spec":{"f:color":{},"f:ports":{"k:{\"name\":\"http\"}":{".":{},"f:name":{},"f:port":{}}}}}`, true},
		{"creator", v1, `{"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{".":{},"f:replicas":{},"f:size":{},"f:tags":{"v:\"x\"":{}},"f:ports":{"k:{\"name\":\"https\"}":{".":{},"f:name":{},"f:port":{}}}}}`, false},
		{"old", "stable.example.com/v0", `{"f:spec":{"f:color":{}}}`, false},
		{"statuser", v1, `{"f:status":{"f:readyReplicas":{}}}`, false},
		{"empty", v1, `{}`, false},
	}
	tests := []struct {
		name        string
		kind        *kind
		live, doc   string
		subresource string
		managed     []entry
		general     bool // the walk hands the update to the general path
	}{
		{name: "the 1.9 KB Widget scaled", kind: w, managed: owners,
			live: string(widgetDoc()), doc: `{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"widget-0001","namespace":"default","uid":"6f1c2a8e-3b0d-4c1e-9a57-2f8d1e4b7c90"},"spec":{"replicas":4,"ports":[{"name":"http","port":8080}]}}`},
		{name: "no change", kind: w, managed: owners,
			live: `{` + head + `,"spec":{"replicas":1,"color":"red"}}`, doc: `{` + head + `,"spec":{"replicas":1,"color":"red"}}`},
		{name: "change taken from owners", kind: w, managed: owners,
			live: `{` + head + `,"spec":{"replicas":1,"color":"red","ports":[{"name":"http","port":80},{"name":"https","port":443}]}}`,
			doc:  `{` + head + `,"spec":{"replicas":2,"color":"blue","ports":[{"name":"https","port":444},{"name":"http","port":80}]}}`},
		{name: "removal taken from everyone", kind: w, managed: owners,
			live: `{` + head + `,"spec":{"replicas":1,"size":"s","tags":["x","y"],"ports":[{"name":"http","port":80},{"name":"https","port":443}]}}`,
			doc:  `{` + head + `,"spec":{"replicas":1,"tags":["y","z"],"ports":[{"name":"http","port":80,"protocol":"UDP"}]}}`},
		{name: "spec removed", kind: w, managed: owners,
			live: `{` + head + `,"spec":{"replicas":1,"ports":[{"name":"http","port":80}]}}`, doc: `{` + head + `}`},
		{name: "spec added", kind: w, managed: owners[:1],
			live: `{` + head + `}`, doc: `{` + head + `,"spec":{"tags":["a"],"ports":[{"name":"http","port":80}]}}`},
		{name: "nulls and empties", kind: w, managed: owners,
			live: `{` + head + `,"spec":{"replicas":null,"tags":[],"ports":null,"color":""}}`,
			doc:  `{` + head + `,"spec":{"replicas":2,"tags":null,"ports":[],"size":null},"metadata":{"labels":{}}}`},
		{name: "null to map and back", kind: w, managed: owners,
			live: `{` + head + `,"spec":null,"status":{}}`, doc: `{` + head + `,"spec":{"color":"x"},"status":null}`},
		{name: "status ignored on the main resource", kind: w, managed: owners,
			live: `{` + head + `,"status":{"readyReplicas":1}}`, doc: `{` + head + `,"status":{"readyReplicas":2,"selector":"s"}}`},
		{name: "status subresource", kind: w, managed: owners, subresource: "status",
			live: `{` + head + `,"spec":{"color":"a"},"status":{"readyReplicas":1}}`,
			doc:  `{` + head + `,"spec":{"color":"b"},"status":{"conditions":[{"type":"Ready","status":"True"}]}}`},
		{name: "integer and float equal", kind: th,
			managed: []entry{{"c", v1, `{"f:spec":{"f:numbers":{"v:1":{}},"f:ios":{}}}`, false}},
			live:    `{` + head + `,"spec":{"numbers":[1,2.5],"ios":1,"any":1}}`, doc: `{` + head + `,"spec":{"numbers":[1.0,2.5],"ios":1.0,"any":1.0}}`},
		{name: "atomic map, list and untyped values", kind: th, managed: owners,
			live: `{` + head + `,"spec":{"atomicMap":{"a":"x"},"atomicList":[{"x":"1"}],"any":{"q":[1]},"free":{"z":{"y":[1]},"w":1},"pairs":[{"a":"x","b":1,"v":true}]}}`,
			doc:  `{` + head + `,"spec":{"atomicMap":{"a":"y","b":1},"atomicList":[{"x":"1"},{"x":"2"}],"any":{"q":[2]},"free":{"z":{"y":[2]},"v":{}},"pairs":[{"a":"x","b":1,"v":false},{"a":"x","b":2}]}}`},
		{name: "schema made a granular owner atomic", kind: th,
			managed: []entry{{"c", v1, `{"f:spec":{"f:atomicMap":{"f:a":{}},"f:atomicList":{"k:{\"x\":\"1\"}":{}}}}`, false}},
			live:    `{` + head + `,"spec":{"atomicMap":{"a":"x"},"atomicList":[{"x":"1"}]}}`, doc: `{` + head + `,"spec":{"atomicMap":{"a":"x"},"atomicList":[{"x":"1"}],"flag":true}}`},
		{name: "no schema", kind: none, managed: owners,
			live: `{` + head + `,"spec":{"a":{"b":[1,{"c":2}]},"d":null,"e":{"f":1}}}`, doc: `{` + head + `,"spec":{"a":{"b":[1]},"e":{"f":2,"g":[]}}}`},
		{name: "untyped value changes kind", general: true, kind: th, managed: owners,
			live: `{` + head + `,"spec":{"any":{"q":1}}}`, doc: `{` + head + `,"spec":{"any":"q"}}`},
		{name: "untyped null", general: true, kind: none, managed: owners,
			live: `{` + head + `,"spec":{"a":null}}`, doc: `{` + head + `,"spec":{"a":{"b":1}}}`},
		{name: "undeclared field", general: true, kind: w, managed: owners,
			live: `{` + head + `,"spec":{"bogus":1}}`, doc: `{` + head + `,"spec":{}}`},
		{name: "wrong scalar type in the new object", general: true, kind: w, managed: owners,
			live: `{` + head + `,"spec":{"replicas":3}}`, doc: `{` + head + `,"spec":{"replicas":"3"}}`},
		{name: "duplicate port", general: true, kind: w, managed: owners,
			live: `{` + head + `,"spec":{"ports":[{"name":"a","port":1},{"name":"a","port":2}]}}`, doc: `{` + head + `,"spec":{"ports":[{"name":"a","port":1}]}}`},
		{name: "duplicate tag", general: true, kind: w, managed: owners,
			live: `{` + head + `,"spec":{"tags":["a"]}}`, doc: `{` + head + `,"spec":{"tags":["a","b","a"]}}`},
		{name: "port without its key", general: true, kind: w, managed: owners,
			live: `{` + head + `,"spec":{"ports":[{"port":1}]}}`, doc: `{` + head + `,"spec":{"ports":[]}}`},
		{name: "bad value inside an atomic map", general: true, kind: th, managed: owners,
			live: `{` + head + `,"spec":{"atomicMap":{"a":"x"}}}`, doc: `{` + head + `,"spec":{"atomicMap":{"a":1}}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			live, doc := js(t, tc.live), js(t, tc.doc)
			for _, managed := range [][]entry{nil, tc.managed} {
				if _, fast := sameUpdate(t, tc.kind, live, doc, managersOf(t, managed), tc.subresource); fast == tc.general {
					t.Errorf("walk answered: %v, want %v", fast, !tc.general)
				}
			}
		})
	}
}

// TestUpdatedRandom compares the two paths on chains of random updates:
// random objects of the Widget, of a schema with every list and map kind
// and without a schema, each changed at random (fields set, replaced,
// removed, list entries added and dropped), written by a few managers in
// turn and now and then through /status.
func TestUpdatedRandom(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 200
	}
	managers := []string{"a", "b", "c"}
	for _, s := range randomCases(t, 11) {
		k, g, root := s.k, s.g, s.root
		fastCount := 0
		var live []byte
		var owners fieldpath.ManagedFields
		for i := 0; i < n; i++ {
			if i%10 == 0 {
				obj := g.object(root, 0)
				stampObject(obj, g)
				live = mustJSON(t, obj)
				created, err := k.general(map[string]any{}, decode(t, live), fieldpath.ManagedFields{}, "")
				if err != nil {
					created = fieldpath.ManagedFields{}
				}
				owners = handOver(created, "creator")
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
			out, fast := sameUpdate(t, k, live, doc, owners, sub)
			if fast {
				fastCount++
			}
			if out != nil {
				owners = handOver(out, managers[g.rng.IntN(len(managers))])
			}
			live = doc
		}
		if fastCount < n/4 {
			t.Errorf("%s: %d of %d updates took the fast path", s.name, fastCount, n)
		}
		t.Logf("%s: %d of %d updates took the fast path", s.name, fastCount, n)
	}
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

func FuzzUpdated(f *testing.F) {
	f.Add(widgetDoc(), []byte(`{"apiVersion":"stable.example.com/v1","kind":"Widget","metadata":{"name":"widget-0001","uid":"x"},"spec":{"replicas":4,"ports":[{"name":"http","port":8080}]}}`))
	f.Add([]byte(`{"metadata":{"uid":"u"},"spec":{"tags":["a"],"ports":[{"name":"a","port":1}]}}`), []byte(`{"metadata":{"uid":"u"},"spec":{"tags":["b","a"],"ports":null},"status":{"readyReplicas":1}}`))
	f.Add([]byte(`{"metadata":{"uid":"u"},"spec":{"atomicMap":{"a":"x"},"pairs":[{"a":"x","b":1}],"any":[1,{}]}}`), []byte(`{"metadata":{"uid":"u"},"spec":{"atomicMap":{"b":2},"pairs":[{"a":"x","b":1,"v":true}],"any":[1,{}],"numbers":[1,1.5]}}`))
	kinds := []*kind{newKind(f, widgetSchema(f)), newKind(f, thingSchema()), newKind(f, nil)}
	owners := managersOf(f, []entry{
		{"a", "stable.example.com/v1", `{"f:spec":{"f:replicas":{},"f:tags":{"v:\"a\"":{}},"f:atomicMap":{}}}`, true},
		{"b", "stable.example.com/v1", `{"f:spec":{"f:ports":{"k:{\"name\":\"a\"}":{".":{},"f:port":{}}},"f:pairs":{}}}`, false},
	})
	f.Fuzz(func(t *testing.T, live, doc []byte) {
		for _, d := range [][]byte{live, doc} {
			var m map[string]any
			if json.Unmarshal(d, &m) != nil || m == nil {
				return
			}
		}
		for _, k := range kinds {
			for _, sub := range []string{"", "status"} {
				sameUpdate(t, k, live, doc, owners, sub)
			}
		}
	})
}

// The common case, a controller changing a field of the stored Widget,
// takes the fast path.
func TestUpdatedWidgetWalked(t *testing.T) {
	k := newKind(t, widgetSchema(t))
	doc := bytes.Replace(widgetDoc(), []byte(`"replicas":3`), []byte(`"replicas":4`), 1)
	if _, ok := k.fast.Changed(decode(t, widgetDoc()), decode(t, doc)); !ok {
		t.Fatal("the update of the Widget takes the general path")
	}
}

// TestSameMatchesWalk checks the walk's shortcut for equal values against
// walking them side by side, on random objects (nulls, values of other
// types, unknown fields, duplicate and unnamed list entries) and random
// values at the root: both decline or both answer, with no change told.
func TestSameMatchesWalk(t *testing.T) {
	answered, declined := 0, 0
	for _, s := range randomCases(t, 19) {
		k, g, root := s.k, s.g, s.root
		for i := range 3000 {
			var v any = g.object(root, 0)
			if i%5 == 0 {
				v = g.any(0)
			}
			same, walked, told := fastfields.SameAsWalked(k.fast, v)
			if same != walked || told {
				t.Fatalf("%s: %s: same %v, walked %v (told of a change: %v)", s.name, mustJSON(t, v), same, walked, told)
			}
			if same {
				answered++
			} else {
				declined++
			}
		}
	}
	if answered == 0 || declined == 0 {
		t.Errorf("%d values answered, %d declined: the test needs both outcomes", answered, declined)
	}
}

// TestSameEqualMatchesBoth checks the one walk that compares two values
// and checks the first against the schema with the two walks it stands
// for, on random objects and values compared with copies of themselves
// and with changed copies.
func TestSameEqualMatchesBoth(t *testing.T) {
	counts := map[[2]bool]int{}
	for _, s := range randomCases(t, 23) {
		k, g, root := s.k, s.g, s.root
		for i := range 3000 {
			var v any = g.object(root, 0)
			if i%5 == 0 {
				v = g.any(0)
			}
			other, err := patch.DecodeValue(mustJSON(t, v))
			if err != nil {
				t.Fatal(err)
			}
			if m, ok := other.(map[string]any); ok && i%2 == 0 {
				g.mutate(m, root, 0)
			}
			equal, same, wantEqual, wantSame := fastfields.SameEqual(k.fast, v, other)
			if equal != wantEqual || equal && same != wantSame {
				t.Fatalf("%s: %s and %s: sameEqual %v %v, want %v %v", s.name, mustJSON(t, v), mustJSON(t, other), equal, same, wantEqual, wantSame)
			}
			counts[[2]bool{equal, same}]++
		}
	}
	if counts[[2]bool{true, true}] == 0 || counts[[2]bool{true, false}] == 0 || counts[[2]bool{false, false}] == 0 {
		t.Errorf("outcomes %v: the test needs equal values that fit and do not, and values that differ", counts)
	}
}
