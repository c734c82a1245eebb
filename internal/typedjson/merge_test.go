package typedjson

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/patch"
)

// checkMergePatch applies p to doc's decoding with MergePatch and, when
// it answers, wants what decoding patch.MergePatch's merge of p into doc
// gives. It reports whether MergePatch answered.
func checkMergePatch[T any](t *testing.T, d *Decoder, doc, p []byte) bool {
	t.Helper()
	var got T
	if !d.Decode(doc, &got) || !d.MergePatch(p, &got) {
		return false
	}
	merged, err := patch.MergePatch(doc, p)
	if err != nil {
		t.Fatalf("patch %s of %s: MergePatch answered where the merge failed: %v", p, doc, err)
	}
	var want T
	if !d.Decode(merged, &want) {
		t.Fatalf("patch %s of %s: MergePatch answered where the merge %s does not decode", p, doc, merged)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(formThing{})); diff != "" {
		t.Fatalf("patch %s of %s:\nMergePatch gave (-want +got):\n%s", p, doc, diff)
	}
	return true
}

func TestMergePatch(t *testing.T) {
	d := New(reflect.TypeFor[*formThing]())
	doc := `{"metadata":{"name":"a","labels":{"k":"v","x":"y"}},"spec":{"i16":3,"tags":["a"],"b":true},"pspec":{"i":1},"map":{"a":"b"},"times":["2024-01-02T03:04:05Z"]}`
	tests := []struct {
		name, patch string
		answers     bool
	}{
		{"scalar", `{"spec":{"i16":4}}`, true},
		{"null zeroes", `{"spec":{"b":null,"tags":null},"pspec":null}`, true},
		{"labels merge", `{"metadata":{"labels":{"k":null,"n":"m"}}}`, true},
		{"nil map", `{"metadata":{"annotations":{"a":null}}}`, true},
		{"nil pointer to struct", `{"self":{"note":"x","spec":{"i":2}}}`, true},
		{"array replaces", `{"spec":{"tags":["b","c"]},"items":[{"i":1}]}`, true},
		{"unmarshaler", `{"ptime":"2024-01-02T03:04:05Z","times":[]}`, true},
		{"metadata null", `{"metadata":null}`, true},
		{"unknown field", `{"spec":{"nope":1}}`, false},
		{"wrong type", `{"spec":{"i16":"x"}}`, false},
		{"object for a scalar", `{"spec":{"i16":{}}}`, false},
		{"object for an unmarshaler", `{"ptime":{}}`, false},
		{"null in an array", `{"items":[{"b":null}]}`, false},
		{"repeated key", `{"spec":{"i":1,"i":2}}`, false},
		{"repeated map key", `{"map":{"a":"1","a":"2"}}`, false},
		{"not an object", `[]`, false},
		{"null patch", `null`, false},
		{"trailing garbage", `{} x`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkMergePatch[formThing](t, d, []byte(doc), []byte(tc.patch)); got != tc.answers {
				t.Errorf("MergePatch answered %v, want %v", got, tc.answers)
			}
		})
	}
}

// TestMergePatchRandom patches random values with random patches cut
// from other random values: fields dropped, nulled, renamed to unknown
// ones, objects swapped for scalars and arrays given nulls.
func TestMergePatchRandom(t *testing.T) {
	d := New(reflect.TypeFor[*formThing]())
	r := rand.New(rand.NewPCG(20, 11))
	answered, compared := 0, 0
	const runs = 10000
	for range runs {
		var v, w formThing
		fill(r, reflect.ValueOf(&v).Elem(), 0)
		fill(r, reflect.ValueOf(&w).Elem(), 0)
		tame(reflect.ValueOf(&v).Elem())
		if r.IntN(4) > 0 {
			tame(reflect.ValueOf(&w).Elem())
		}
		doc, err := json.Marshal(&v)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := d.Form(&v, patch.DecodeValue); !ok {
			t.Fatalf("%+v has no form", v)
		}
		if !d.Decode(doc, new(formThing)) {
			continue // the server patches what it decodes
		}
		compared++
		p := randomPatch(t, r, &w)
		if checkMergePatch[formThing](t, d, doc, p) {
			answered++
		}
	}
	if answered < compared/8 {
		t.Errorf("MergePatch answered %d of %d", answered, compared)
	}
	t.Logf("MergePatch answered %d of %d", answered, compared)
}

// randomPatch is a merge patch cut from v's encoding.
func randomPatch(t *testing.T, r *rand.Rand, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		t.Fatal(err)
	}
	if r.IntN(50) == 0 {
		x = []any{x}
	}
	c := cutter{r: r, odd: r.IntN(3) == 0}
	out, err := json.Marshal(c.cut(x, 0))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// cutter cuts patches from values: it keeps some of each object's
// fields and nulls others; an odd cutter also renames fields to unknown
// ones, swaps objects for scalars, strings for numbers and the other way
// round, and puts nulls in arrays.
type cutter struct {
	r   *rand.Rand
	odd bool
}

// cut keeps some of x, changing it here and there.
func (c cutter) cut(x any, depth int) any {
	r := c.r
	odd := func(n int) bool { return c.odd && r.IntN(n) == 0 }
	switch t := x.(type) {
	case map[string]any:
		if depth > 0 && odd(30) {
			return []any{"s", json.Number("1")}[r.IntN(2)]
		}
		out := map[string]any{}
		for k, e := range t {
			switch n := r.IntN(20); {
			case n < 8:
			case n < 10:
				out[k] = nil
			case n == 10 && c.odd:
				out["zz"+k] = e
			default:
				out[k] = c.cut(e, depth+1)
			}
		}
		return out
	case []any:
		if odd(10) {
			return append(t, nil)
		}
		for i, e := range t {
			t[i] = c.cut(e, depth+1)
		}
		return t
	case string:
		if odd(20) {
			return json.Number("7")
		}
	case json.Number:
		if odd(20) {
			return "7"
		}
	}
	return x
}

// tame makes the strings of v, settable, valid UTF-8 and its 64-bit
// integers of at most 18 digits: the values the server patches by their
// form (see Decoder.Form). A merge of a decoded document rounds an
// unsigned integer past int64 to a float64, which MergePatch does not
// (nor does kube-apiserver, which keeps untouched values as they are),
// and MergePatch gives up on longer integers in a patch.
func tame(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(strings.ToValidUTF8(v.String(), "?"))
	case reflect.Uint64:
		v.SetUint(v.Uint() >> 24)
	case reflect.Int64, reflect.Int:
		v.SetInt(v.Int() >> 24)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				tame(v.Field(i))
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			tame(v.Elem())
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.Uint8 {
			for i := range v.Len() {
				tame(v.Index(i))
			}
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		m := reflect.MakeMap(v.Type())
		for it := v.MapRange(); it.Next(); {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			k.Set(it.Key())
			e.Set(it.Value())
			tame(k)
			tame(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}
