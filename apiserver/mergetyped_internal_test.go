package apiserver

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver/internal/handlers"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/codec"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
)

// mergeResource is a typed kind's resource with its compiled decoder and
// patcher, for merge patches.
func mergeResource(t *testing.T) *registry.Resource {
	t.Helper()
	r := spliceResource(func() meta.Object { return &spliced{} })
	r.TypedJSON = registry.CompileJSON(r.Kind, nil)
	r.JSONCodec = codec.JSON{}
	p, err := patch.New(patch.Config{Group: "g.example.com", Version: "v1", Kind: "Spliced"})
	if err != nil {
		t.Fatal(err)
	}
	r.Patcher = p
	return r
}

// checkMergeTyped applies body to doc both ways, wanting the same object
// where mergePatchTyped answers; it reports whether it did.
func checkMergeTyped(t *testing.T, r *registry.Resource, doc, body []byte) bool {
	t.Helper()
	old := &spliced{}
	if err := json.Unmarshal(doc, old); err != nil {
		t.Fatal(err)
	}
	got, ok := handlers.MergePatchTyped(r, doc, old, body)
	if !ok {
		return false
	}
	patched, _, kept, err := handlers.PatchKeepingManagedFields(r, patch.MergePatchType, doc, old, body)
	if err != nil {
		t.Fatalf("patch %s: answered where the general path failed: %v", body, err)
	}
	want := &spliced{}
	if _, err := r.DecodeJSON(codec.JSON{}, patched, want, false); err != nil {
		t.Fatalf("patch %s: answered where the general result %s does not decode: %v", body, patched, err)
	}
	if kept {
		want.ManagedFields = handlers.CopyEntries(old.ManagedFields)
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if diff := cmp.Diff(want, got); string(gb) != string(wb) || diff != "" {
		t.Fatalf("patch %s:\ngot  %s\nwant %s\n(-want +got):\n%s", body, gb, wb, diff)
	}
	return true
}

// TestMergePatchTypedMatchesGeneral checks that a merge patch merged into
// the decoded stored object gives the object the general path decodes,
// on patches it answers, and that it leaves the others to that path.
func TestMergePatchTypedMatchesGeneral(t *testing.T) {
	r := mergeResource(t)
	doc := []byte(splicedBody)
	for _, tc := range []struct {
		name, body string
		answers    bool
	}{
		{"spec field", `{"spec":{"note":"bye"}}`, true},
		{"labels", `{"metadata":{"labels":{"app":null,"new":"y"}}}`, true},
		{"spec null", `{"spec":null}`, true},
		{"managedFields", `{"metadata":{"managedFields":[]}}`, true},
		{"managedFields null", `{"metadata":{"managedFields":null}}`, true},
		{"metadata null", `{"metadata":null}`, true},
		{"unknown field", `{"spec":{"nope":1}}`, false},
		{"wrong type", `{"spec":{"note":1}}`, false},
		{"array", `[{"spec":{}}]`, false},
		{"not JSON", `{`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkMergeTyped(t, r, doc, []byte(tc.body)); got != tc.answers {
				t.Errorf("answered %v, want %v", got, tc.answers)
			}
		})
	}
}

// TestMergePatchTypedRandom compares both paths on random patches of
// random stored objects.
func TestMergePatchTypedRandom(t *testing.T) {
	r := mergeResource(t)
	rng := rand.New(rand.NewPCG(20, 3))
	pick := func(vals ...any) any { return vals[rng.IntN(len(vals))] }
	strMap := func() any {
		m := map[string]any{}
		for range rng.IntN(4) {
			m[pick("a", "b", "c").(string)] = pick("x", "", nil)
		}
		return pick(m, nil, "s")
	}
	answered := 0
	const runs = 2000
	for range runs {
		old := &spliced{}
		if err := json.Unmarshal([]byte(splicedBody), old); err != nil {
			t.Fatal(err)
		}
		old.Spec.Note = pick("", "n", "é").(string)
		old.Labels = map[string]string{"a": "1"}
		if rng.IntN(2) == 0 {
			old.Spec.Map = nil
		}
		doc, err := json.Marshal(old)
		if err != nil {
			t.Fatal(err)
		}
		body := map[string]any{}
		for _, k := range []string{"spec", "metadata", "kind"} {
			if rng.IntN(2) == 0 {
				continue
			}
			switch k {
			case "spec":
				body[k] = pick(map[string]any{"note": pick("m", nil, 1), "map": strMap()}, nil, map[string]any{})
			case "metadata":
				body[k] = pick(map[string]any{"labels": strMap(), "finalizers": pick([]any{"f"}, []any{nil}, nil)}, nil)
			default:
				body[k] = pick("Spliced", "Other")
			}
		}
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		if checkMergeTyped(t, r, doc, b) {
			answered++
		}
	}
	if answered < runs/4 {
		t.Errorf("answered %d of %d", answered, runs)
	}
	t.Logf("answered %d of %d", answered, runs)
}
