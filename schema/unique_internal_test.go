package schema

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/status"
)

// TestSmallUniqueChecksMatchMaps: the checks of short sets and list-type
// maps that compare items with each other report the same duplicates,
// at the same paths and in the same order, as the checks by key in a
// map, on random lists drawn from few values so that duplicates are
// common.
func TestSmallUniqueChecksMatchMaps(t *testing.T) {
	ports := int64(2)
	s := &Schema{Type: "array", XListType: "map", XListMapKeys: []string{"name", "port"},
		Items: &Schema{Type: "object", Properties: map[string]*Schema{
			"name": {Type: "string"},
			"port": {Type: "integer", Default: ports},
		}}}
	rng := rand.New(rand.NewPCG(3, 4))
	strs := []any{"a", "b", "c", "a\"", ""}
	for n := range smallList + 1 {
		for round := range 40 {
			name := fmt.Sprintf("len %d round %d", n, round)
			set, items := make([]any, n), make([]any, n)
			for i := range n {
				set[i] = strs[rng.IntN(len(strs))]
				item := map[string]any{"name": strs[rng.IntN(3)]}
				switch rng.IntN(4) {
				case 0: // the default stands for it
				case 1:
					item["port"] = ports
				default:
					item["port"] = int64(rng.IntN(3))
				}
				items[i] = item
				if rng.IntN(10) == 0 {
					items[i] = "not an object"
				}
			}
			var small, byKey status.FieldErrors
			if !uniqueSmallStringSet(newPath(status.NewPath("set")), set, &small) {
				t.Fatalf("%s: a short list of strings was not checked", name)
			}
			uniqueSetByKey(newPath(status.NewPath("set")), set, &byKey)
			if diff := cmp.Diff(byKey, small, cmp.AllowUnexported(status.FieldError{})); diff != "" {
				t.Errorf("%s: set %q: (-by key +compared):\n%s", name, set, diff)
			}
			small, byKey = nil, nil
			uniqueSmallKeys(s, newPath(status.NewPath("map")), items, &small)
			uniqueKeysByID(s, newPath(status.NewPath("map")), items, &byKey)
			if diff := cmp.Diff(byKey, small, cmp.AllowUnexported(status.FieldError{})); diff != "" {
				t.Errorf("%s: list %v: (-by key +compared):\n%s", name, items, diff)
			}
		}
	}
}

// TestSmallStringSetDeclines: sets that are long or hold other values
// than strings are left to the check by key.
func TestSmallStringSetDeclines(t *testing.T) {
	long := make([]any, smallList+1)
	for i := range long {
		long[i] = "a"
	}
	for _, tc := range []struct {
		name string
		set  []any
	}{
		{"too long", long},
		{"a number", []any{"a", int64(1)}},
		{"an object", []any{map[string]any{}}},
	} {
		var errs status.FieldErrors
		if uniqueSmallStringSet(newPath(status.NewPath("set")), tc.set, &errs) || errs != nil {
			t.Errorf("%s: checked, with %v", tc.name, errs)
		}
	}
}

// TestKeyIDsAreDistinct: two list-type map items get the same key ID
// exactly when their keys are equal, on random keys drawn from
// characters that an ID made by plain concatenation would confuse.
func TestKeyIDsAreDistinct(t *testing.T) {
	s := &Schema{Type: "array", XListType: "map", XListMapKeys: []string{"name", "other"},
		Items: &Schema{Type: "object", Properties: map[string]*Schema{"name": {Type: "string"}, "other": {Type: "string"}}}}
	rng := rand.New(rand.NewPCG(9, 10))
	chars := []string{"a", "s", "1", ":", "\x00", `"`, "é"}
	str := func() string {
		out := ""
		for range rng.IntN(4) {
			out += chars[rng.IntN(len(chars))]
		}
		return out
	}
	pairs := [][2]map[string]any{
		{{"name": "a\x00sb", "other": "c"}, {"name": "a", "other": "b\x00sc"}},
		{{"name": "1:a", "other": ""}, {"name": "1", "other": ":a"}},
		{{"name": "", "other": "s"}, {"name": "s", "other": ""}},
		{{"name": "x", "other": "y"}, {"name": "x", "other": "y"}},
	}
	for range 20000 {
		pair := [2]map[string]any{{"name": str(), "other": str()}, {"name": str(), "other": str()}}
		if rng.IntN(8) == 0 {
			pair[1]["name"] = 7 // of another type than any string
		}
		pairs = append(pairs, pair)
	}
	for _, pair := range pairs {
		a, b := pair[0], pair[1]
		same := reflect.DeepEqual(a, b)
		if ids := string(appendKeyID(nil, s, a)) == string(appendKeyID(nil, s, b)); ids != same {
			t.Fatalf("%q and %q: same IDs %v, same keys %v", a, b, ids, same)
		}
	}
}
