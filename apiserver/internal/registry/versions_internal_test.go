package registry

import (
	"math/rand/v2"
	"testing"
	"testing/quick"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver/kinds"
	"github.com/kapi-dev/kapi/meta"
)

// randomJSON is a random decoded JSON value of bounded depth.
func randomJSON(r *rand.Rand, depth int) any {
	k := r.IntN(6)
	if depth == 0 {
		k %= 4
	}
	switch k {
	case 0:
		return r.Int64N(100)
	case 1:
		return string(rune('a' + r.IntN(26)))
	case 2:
		return r.IntN(2) == 0
	case 3:
		return nil
	case 4:
		s := make([]any, r.IntN(3))
		for i := range s {
			s[i] = randomJSON(r, depth-1)
		}
		return s
	}
	m := map[string]any{}
	for range r.IntN(3) {
		m[string(rune('a'+r.IntN(26)))] = randomJSON(r, depth-1)
	}
	return m
}

// Conversion of run-time objects with strategy None changes only the
// apiVersion, never the source, and round trips, for random contents.
func TestConvertUnstructuredNone(t *testing.T) {
	k := kinds.Kind{Group: "g.example.com", Kind: "Thing", Resource: "things",
		New:      func() meta.Object { return &meta.Unstructured{} },
		Versions: []kinds.KindVersion{{Name: "v1", Storage: true}, {Name: "v2"}}}
	_, _, vs, err := ExpandVersions(k)
	if err != nil {
		t.Fatal(err)
	}
	check := func(s1, s2 uint64) bool {
		r := rand.New(rand.NewPCG(s1, s2))
		content, _ := randomJSON(r, 4).(map[string]any)
		if content == nil {
			content = map[string]any{"spec": randomJSON(r, 3)}
		}
		src := &meta.Unstructured{TypeMeta: meta.TypeMeta{APIVersion: "g.example.com/v1", Kind: "Thing"},
			ObjectMeta: meta.ObjectMeta{Name: "a", UID: "u"}, Content: content}
		before := DeepCopyJSON(content)
		out, err := vs.Convert(src, "g.example.com/v2")
		if err != nil {
			t.Fatal(err)
		}
		u := out.(*meta.Unstructured)
		if u.APIVersion != "g.example.com/v2" || u.Name != "a" {
			t.Errorf("converted to %s, name %q", u.APIVersion, u.Name)
			return false
		}
		if diff := cmp.Diff(before, u.Content); diff != "" {
			t.Errorf("content changed by the conversion (-before +after):\n%s", diff)
			return false
		}
		if diff := cmp.Diff(before, src.Content); src.APIVersion != "g.example.com/v1" || diff != "" {
			t.Errorf("the source changed: %s (-before +after):\n%s", src.APIVersion, diff)
			return false
		}
		back, err := vs.Convert(u, "g.example.com/v1")
		if err != nil {
			t.Errorf("converting back: %v", err)
			return false
		}
		if diff := cmp.Diff(before, back.(*meta.Unstructured).Content); diff != "" {
			t.Errorf("content changed by the round trip (-before +after):\n%s", diff)
			return false
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 300}); err != nil {
		t.Error(err)
	}
}

// A conversion function that changes an object's name is refused.
func TestConvertKeepsMetadata(t *testing.T) {
	k := kinds.Kind{Group: "g.example.com", Kind: "Thing", Resource: "things",
		New: func() meta.Object { return &meta.Unstructured{} },
		Convert: func(obj *meta.Unstructured, to string) error {
			obj.Name, obj.APIVersion = "renamed", to
			return nil
		},
		Versions: []kinds.KindVersion{{Name: "v1", Storage: true}, {Name: "v2"}}}
	_, _, vs, err := ExpandVersions(k)
	if err != nil {
		t.Fatal(err)
	}
	src := &meta.Unstructured{TypeMeta: meta.TypeMeta{APIVersion: "g.example.com/v1", Kind: "Thing"},
		ObjectMeta: meta.ObjectMeta{Name: "a"}}
	if _, err := vs.Convert(src, "g.example.com/v2"); err == nil {
		t.Error("a conversion renaming the object was accepted")
	}
}
