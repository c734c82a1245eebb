package apiserver

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kapi-dev/kapi/apiserver/internal/schemaplan"
)

// formSample is a Go value with every kind of field jsonForm meets in a
// kind's type.
type formSample struct {
	I32   int32             `json:"i32"`
	I64   int64             `json:"i64,omitempty"`
	U64   uint64            `json:"u64"`
	F64   float64           `json:"f64"`
	F32   float32           `json:"f32,omitempty"`
	S     string            `json:"s"`
	B     bool              `json:"b"`
	P     *int32            `json:"p"`
	PS    *string           `json:"ps,omitempty"`
	L     []string          `json:"l"`
	M     map[string]int64  `json:"m,omitempty"`
	Raw   json.RawMessage   `json:"raw,omitempty"`
	Any   any               `json:"any"`
	Items []formSample      `json:"items,omitempty"`
	Attrs map[string]string `json:"attrs"`
}

// randomSample fills a formSample from r, nesting up to depth.
func randomSample(r *rand.Rand, depth int) formSample {
	strs := []string{"", "a", "héllo", "<tag>&", "quote\"back\\slash", "\u2028\u2029", "\x00\x1f", "\ufffd", "1e3"}
	nums := []float64{0, 1, -1, 0.5, 1e21, 1e-7, math.MaxFloat64, math.SmallestNonzeroFloat64, 1 << 53, -(1 << 63), 123456789.125}
	raws := []string{`1`, `1.0`, `1e400`, `-0`, `12345678901234567890`, `{"a":[1,2.5,null,true]}`, `"x"`, `[]`}
	s := formSample{
		I32: r.Int32() - math.MaxInt32/2, I64: r.Int64() - math.MaxInt64/2, U64: r.Uint64(),
		F64: nums[r.IntN(len(nums))], F32: float32(r.Float64()*1e6 - 5e5),
		S: strs[r.IntN(len(strs))], B: r.IntN(2) == 0,
	}
	if r.IntN(2) == 0 {
		v := r.Int32()
		s.P = &v
	}
	if r.IntN(2) == 0 {
		v := strs[r.IntN(len(strs))]
		s.PS = &v
	}
	for range r.IntN(4) {
		s.L = append(s.L, strs[r.IntN(len(strs))])
	}
	if r.IntN(2) == 0 {
		s.M = map[string]int64{strs[r.IntN(len(strs))]: r.Int64(), "k": -r.Int64()}
	}
	if r.IntN(2) == 0 {
		s.Raw = json.RawMessage(raws[r.IntN(len(raws))])
	}
	switch r.IntN(4) {
	case 0:
		s.Any = nums[r.IntN(len(nums))]
	case 1:
		s.Any = []any{strs[r.IntN(len(strs))], r.Int64(), nil}
	case 2:
		s.Any = map[string]any{"n": r.Float64(), "s": strs[r.IntN(len(strs))]}
	}
	if depth > 0 {
		for range r.IntN(3) {
			s.Items = append(s.Items, randomSample(r, depth-1))
		}
	}
	if r.IntN(2) == 0 {
		s.Attrs = map[string]string{"x": strs[r.IntN(len(strs))]}
	}
	return s
}

// TestJSONFormMatchesGeneralPath checks that jsonForm, which reads the
// JSON with package patch's decoder, gives what the general path
// (encoding/json with UseNumber, then numbers) gives, on random values,
// whole and field by field.
func TestJSONFormMatchesGeneralPath(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 2))
	for i := range 3000 {
		s := randomSample(r, 2)
		values := []reflect.Value{reflect.ValueOf(&s)}
		v := reflect.ValueOf(s)
		for f := range v.NumField() {
			values = append(values, v.Field(f))
		}
		for _, fv := range values {
			got, err := schemaplan.JSONForm(fv)
			b, merr := json.Marshal(fv.Interface())
			if merr != nil {
				t.Fatal(merr)
			}
			want, werr := schemaplan.JSONFormOf(b)
			if (err != nil) != (werr != nil) {
				t.Fatalf("sample %d: %s: error %v, general path %v", i, b, err, werr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("sample %d: %s (-want +got):\n%s", i, b, diff)
			}
		}
	}
}
