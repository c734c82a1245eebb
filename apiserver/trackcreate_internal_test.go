package apiserver

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver/internal/pipeline"
	"github.com/kapi-dev/kapi/apiserver/internal/registry"
	"github.com/kapi-dev/kapi/internal/jsonscan"
	"github.com/kapi-dev/kapi/meta"
	"github.com/kapi-dev/kapi/patch"
	"github.com/kapi-dev/kapi/schema"
	"github.com/kapi-dev/kapi/status"
)

// createdThing is a typed kind with a status, for comparing the ways a
// create is recorded.
type createdThing struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata,omitempty"`
	Spec            createdThingSpec   `json:"spec,omitempty"`
	Status          createdThingStatus `json:"status,omitempty"`
}

type createdThingSpec struct {
	Color string            `json:"color,omitempty"`
	Count *int32            `json:"count,omitempty"`
	Tags  []string          `json:"tags,omitempty" listType:"set"`
	Extra map[string]string `json:"extra,omitempty"`
}

type createdThingStatus struct {
	Ready int32 `json:"ready,omitempty"`
}

// randomCreatedThing is a random object as a create stores it: names,
// uid, time and generation set, with random labels, annotations,
// generateName, finalizers, owners, spec and status.
func randomCreatedThing(rng *rand.Rand, i int) *createdThing {
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	strMap := func(keys ...string) map[string]string {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return map[string]string{}
		}
		m := map[string]string{}
		for range 1 + rng.IntN(len(keys)) {
			m[pick(keys...)] = pick("", "v", "héllo", `q"\`)
		}
		return m
	}
	w := &createdThing{TypeMeta: meta.TypeMeta{APIVersion: "stable.example.com/v1", Kind: "CreatedThing"}}
	m := &w.ObjectMeta
	m.Name, m.Namespace, m.UID, m.Generation = fmt.Sprint("t", i), "ns", "0b5c6f3e", 1
	m.CreationTimestamp = meta.Now()
	m.GenerateName = pick("", "", "t-")
	m.Labels = strMap("a", "app.kubernetes.io/name", "z-last", "b.c~d")
	m.Annotations = strMap("example.com/x", "y", "a<b")
	if rng.IntN(6) == 0 {
		m.Finalizers = []string{"example.com/f"}
	}
	if rng.IntN(6) == 0 {
		m.OwnerReferences = []meta.OwnerReference{{APIVersion: "v1", Kind: "K", Name: "o", UID: "1"}}
	}
	w.Spec.Color = pick("", "red")
	if rng.IntN(2) == 0 {
		n := rng.Int32N(10)
		w.Spec.Count = &n
	}
	for range rng.IntN(3) {
		w.Spec.Tags = append(w.Spec.Tags, fmt.Sprint("t", rng.IntN(5)))
	}
	w.Spec.Extra = strMap("k", "l")
	w.Status.Ready = rng.Int32N(2)
	return w
}

// TestTrackCreateMatchesGeneralPath: a create recorded from its typed
// metadata gets the entries the general path gives it (the object's
// whole JSON form given to the field manager), byte for byte, the same
// stored encoding, and the same form for validation but for a metadata
// of its names only; on random objects of kinds with and without a
// status subresource, with and without rules reading the whole
// metadata.
func TestTrackCreateMatchesGeneralPath(t *testing.T) {
	newKind := func(status bool, rules schema.RuleEngine) *registry.Resource {
		sch, err := schema.FromType(reflect.TypeFor[createdThing]())
		if err != nil {
			t.Fatal(err)
		}
		sch.XValidations = []schema.Rule{{Rule: "true"}}
		s := newServer(Options{RuleEngine: rules})
		s.kinds.Register(Kind{Group: "stable.example.com", Version: "v1", Kind: "CreatedThing", Resource: "createdthings",
			Namespaced: true, New: func() meta.Object { return &createdThing{} }, Schema: sch,
			Subresources: Subresources{Status: status}})
		if err := s.kinds.Err(); err != nil {
			t.Fatal(err)
		}
		r := s.kinds.lookup("stable.example.com", "v1", "createdthings").Resource
		t.Cleanup(r.Cache.Stop)
		return r
	}
	for _, tc := range []struct {
		name      string
		r         *registry.Resource
		fastTaken bool // whether any create is recorded the new way
	}{
		{"status subresource", newKind(true, namesOnlyRules{}), true},
		{"no status subresource", newKind(false, namesOnlyRules{}), true},
		{"rules reading all metadata", newKind(false, wholeMetadataRules{}), false},
	} {
		rng := rand.New(rand.NewPCG(11, 12))
		fast := 0
		for i := range 400 {
			seed := rng.Uint64()
			a := randomCreatedThing(rand.New(rand.NewPCG(seed, 1)), i)
			b := randomCreatedThing(rand.New(rand.NewPCG(seed, 1)), i)
			b.CreationTimestamp = a.CreationTimestamp
			forms, ok := pipeline.TrackCreate(tc.r, a, "creator", "")
			if !ok {
				continue
			}
			fast++
			tree, pre, err := tc.r.FormWithoutManagedFields(b)
			if err != nil {
				t.Fatal(err)
			}
			want, err := tc.r.Patcher.UpdateObject(nil, tree, patch.UpdateOptions{Manager: "creator"})
			if err != nil {
				t.Fatal(err)
			}
			if !sameEntriesButTime(a.ManagedFields, want) {
				t.Fatalf("%s: %+v:\nrecorded %s\ngeneral  %s", tc.name, b, fieldsV1Of(a.ManagedFields), fieldsV1Of(want))
			}
			if !bytes.Equal(forms.Encoded, pre) {
				t.Fatalf("%s: %+v: encoded\n%s\nwant\n%s", tc.name, b, forms.Encoded, pre)
			}
			if c := forms.Splice.Compact; c != nil && !registry.SameBytes(c, a.ManagedFields[0].FieldsV1.Raw) {
				t.Fatalf("%s: %+v: compact fieldsV1 %s is not the entry's", tc.name, b, c)
			}
			if forms.Encoded != nil {
				if start, end, _ := jsonscan.ObjectField(forms.Encoded, "metadata"); forms.Splice.MetaStart != start || forms.Splice.MetaEnd != end {
					t.Fatalf("%s: %+v: metadata at [%d, %d), want [%d, %d)", tc.name, b, forms.Splice.MetaStart, forms.Splice.MetaEnd, start, end)
				}
				stored, err := tc.r.StoredValue(a, forms.Encoded, forms.Splice)
				whole, werr := tc.r.Encode(a)
				if err != nil || werr != nil || !bytes.Equal(stored, whole) {
					t.Fatalf("%s: %+v: stored value\n%s (%v)\nwant\n%s (%v)", tc.name, b, stored, err, whole, werr)
				}
			}
			names := map[string]any{}
			for _, k := range []string{"name", "generateName"} {
				if v, ok := tree["metadata"].(map[string]any)[k]; ok {
					names[k] = v
				}
			}
			got, whole := maps.Clone(forms.Object), maps.Clone(tree)
			whole["metadata"] = names
			if diff := cmp.Diff(whole, got); diff != "" {
				t.Fatalf("%s: %+v: form (-want +got):\n%s", tc.name, b, diff)
			}
		}
		if taken := fast > 0; taken != tc.fastTaken {
			t.Errorf("%s: %d of 400 creates recorded from the typed metadata", tc.name, fast)
		} else if taken && fast < 100 {
			t.Errorf("%s: only %d of 400 creates recorded from the typed metadata", tc.name, fast)
		}
	}
}

func sameEntriesButTime(a, b []meta.ManagedFieldsEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Time, y.Time = nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

func fieldsV1Of(entries []meta.ManagedFieldsEntry) string {
	var b bytes.Buffer
	for _, e := range entries {
		if e.FieldsV1 != nil {
			b.Write(e.FieldsV1.Raw)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// namesOnlyRules stands for a rule engine whose rules read only the names
// of metadata, as CEL's do.
type namesOnlyRules struct{}

func (namesOnlyRules) Compile(*schema.Schema, status.Path) (schema.RuleValidator, error) {
	return namesOnlyRules{}, nil
}

func (namesOnlyRules) Validate(context.Context, map[string]any, map[string]any) (status.FieldErrors, []string) {
	return nil, nil
}

func (namesOnlyRules) MetadataNamesOnly() {}

// wholeMetadataRules stands for a rule engine whose rules may read all of
// metadata.
type wholeMetadataRules struct{}

func (wholeMetadataRules) Compile(*schema.Schema, status.Path) (schema.RuleValidator, error) {
	return wholeMetadataRules{}, nil
}

func (wholeMetadataRules) Validate(context.Context, map[string]any, map[string]any) (status.FieldErrors, []string) {
	return nil, nil
}
