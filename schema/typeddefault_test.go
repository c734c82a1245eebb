package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/kapi-dev/kapi/meta"
)

// dflt exercises every shape the defaulting plan follows.
type dflt struct {
	Spec dfltSpec `json:"spec"`
}

type dfltSpec struct {
	Count      int32                 `json:"count" default:"3"`
	Mode       string                `json:"mode,omitempty" default:"\"fast\""`
	Ratio      float64               `json:"ratio,omitempty" default:"0.5"`
	On         *bool                 `json:"on,omitempty" default:"true"`
	Ptr        *int64                `json:"ptr" default:"7"`
	PtrPtr     **int64               `json:"ptrPtr" default:"8"`
	Labels     map[string]string     `json:"labels,omitempty" default:"{\"a\":\"b\"}"`
	Names      []string              `json:"names" default:"[\"x\"]"`
	Inner      *dfltInner            `json:"inner,omitempty" default:"{}"`
	Items      []dfltInner           `json:"items,omitempty"`
	PtrItems   []*dfltInner          `json:"ptrItems,omitempty"`
	ByName     map[string]dfltInner  `json:"byName,omitempty"`
	PtrByName  map[string]*dfltInner `json:"ptrByName,omitempty"`
	Nested     [][]dfltInner         `json:"nested,omitempty"`
	NullOK     *int32                `json:"nullOK" default:"4"`
	NullOKOmit *int32                `json:"nullOKOmit,omitempty" default:"5"`
	When       meta.Time             `json:"when,omitempty"`
	Blob       []byte                `json:"blob,omitempty"`
	Fixed      [2]int32              `json:"fixed,omitempty"`
	Zeroed     dfltInner             `json:"zeroed,omitzero"`
	ZeroedDef  dfltInner             `json:"zeroedDef,omitzero" default:"{\"note\":\"d\"}"`
	Custom     dfltZeroer            `json:"custom,omitzero"`
}

type dfltInner struct {
	Level int32     `json:"level,omitempty" default:"2"`
	Note  string    `json:"note,omitempty"`
	Deep  *dfltDeep `json:"deep,omitempty"`
	Box   dfltBox   `json:"box,omitzero"`
}

// dfltBox is an object a Go value leaves out only when tagged
// omitzero.
type dfltBox struct {
	Flag *bool `json:"flag,omitempty" default:"true"`
}

// dfltZeroer says by its own IsZero method when omitzero leaves it out:
// when it has no note, whatever its level.
type dfltZeroer struct {
	Level int32  `json:"level,omitempty" default:"2"`
	Note  string `json:"note,omitempty"`
}

func (z dfltZeroer) IsZero() bool { return z.Note == "" }

type dfltDeep struct {
	Flag *bool `json:"flag,omitempty" default:"false"`
}

// dfltSchema is dflt's schema with what tags cannot say: defaults of
// array items and map values, and nullable properties.
func dfltSchema(t *testing.T) *Schema {
	s := mustFromType(t, dflt{})
	spec := s.Properties["spec"]
	spec.Properties["ptrItems"].Items.Default = map[string]any{"note": "item"}
	spec.Properties["ptrByName"].AdditionalProperties.Default = map[string]any{}
	spec.Properties["nullOK"].Nullable = true
	spec.Properties["nullOKOmit"].Nullable = true
	return s
}

// defaultViaJSON is the reference: default the JSON form of v and decode
// the result into a fresh value when anything changed.
func defaultViaJSON(t *testing.T, s *Schema, v reflect.Value) reflect.Value {
	t.Helper()
	b, err := json.Marshal(v.Interface())
	if err != nil {
		t.Fatal(err)
	}
	x, err := decodeJSON(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if !s.ApplyDefaults(x) {
		return v
	}
	if b, err = json.Marshal(x); err != nil {
		t.Fatal(err)
	}
	fresh := reflect.New(v.Type())
	if err := json.Unmarshal(b, fresh.Interface()); err != nil {
		t.Fatal(err)
	}
	return fresh.Elem()
}

func encodeJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkDefaulter defaults v both ways and compares the JSON forms; it
// also checks that v itself was not written. It reports whether the
// defaults changed anything.
func checkDefaulter(t *testing.T, s *Schema, d *Defaulter, v any) bool {
	t.Helper()
	before := encodeJSON(t, v)
	want := encodeJSON(t, defaultViaJSON(t, s, reflect.ValueOf(v)).Interface())
	got := reflect.New(reflect.TypeOf(v)).Elem()
	got.Set(reflect.ValueOf(v))
	changed, err := d.Default(got)
	if err != nil {
		t.Fatalf("Default: %v", err)
	}
	if g := encodeJSON(t, got.Interface()); g != want {
		t.Fatalf("defaults of %s:\n got %s\nwant %s", before, g, want)
	}
	if after := encodeJSON(t, v); after != before {
		t.Fatalf("Default wrote its input: %s became %s", before, after)
	}
	if changed != (want != before) {
		t.Fatalf("changed = %v for %s → %s", changed, before, want)
	}
	return changed
}

func TestDefaulterTable(t *testing.T) {
	s := dfltSchema(t).Properties["spec"]
	d, err := NewDefaulter(s, reflect.TypeFor[dfltSpec]())
	if err != nil {
		t.Fatal(err)
	}
	zero, one := int64(0), int32(1)
	pzero := &zero
	tests := []struct {
		name string
		in   dfltSpec
		want string // the JSON of a field that matters, checked on top of the reference
	}{
		{"empty", dfltSpec{}, `"count":0`},
		{"zero without omitempty is present", dfltSpec{Count: 0}, `"count":0`},
		{"nil pointer without omitempty is a null", dfltSpec{}, `"ptr":7`},
		{"pointer to zero is present", dfltSpec{Ptr: &zero}, `"ptr":0`},
		{"pointer to nil pointer is a null", dfltSpec{PtrPtr: new(*int64)}, `"ptrPtr":8`},
		{"pointer to pointer to zero", dfltSpec{PtrPtr: &pzero}, `"ptrPtr":0`},
		{"nullable null stays", dfltSpec{}, `"nullOK":null`},
		{"nullable but omitted", dfltSpec{}, `"nullOKOmit":5`},
		{"nullable set", dfltSpec{NullOK: &one}, `"nullOK":1`},
		{"empty non-nil slice without omitempty", dfltSpec{Names: []string{}}, `"names":[]`},
		{"nil slice", dfltSpec{}, `"names":["x"]`},
		{"empty map with omitempty", dfltSpec{Labels: map[string]string{}}, `"labels":{"a":"b"}`},
		{"default object defaulted", dfltSpec{}, `"inner":{"level":2}`},
		{"present object defaulted inside", dfltSpec{Inner: &dfltInner{Deep: &dfltDeep{}}}, `"inner":{"level":2,"deep":{"flag":false}}`},
		{"items", dfltSpec{Items: []dfltInner{{}, {Level: 9}}}, `"items":[{"level":2},{"level":9}]`},
		{"null items", dfltSpec{PtrItems: []*dfltInner{nil, {Level: 1}}}, `"ptrItems":[{"level":2,"note":"item"},{"level":1}]`},
		{"map values", dfltSpec{ByName: map[string]dfltInner{"a": {}}}, `"byName":{"a":{"level":2}}`},
		{"null map values", dfltSpec{PtrByName: map[string]*dfltInner{"a": nil}}, `"ptrByName":{"a":{"level":2}}`},
		{"nested lists", dfltSpec{Nested: [][]dfltInner{nil, {{}}}}, `"nested":[null,[{"level":2}]]`},
		{"zero omitzero struct is absent", dfltSpec{}, `"fixed":[0,0],"zeroedDef"`},
		{"zero omitzero struct gets its default", dfltSpec{}, `"zeroedDef":{"level":2,"note":"d"}`},
		{"omitzero struct set is defaulted inside", dfltSpec{Zeroed: dfltInner{Note: "n"}}, `"zeroed":{"level":2,"note":"n"}`},
		{"zero omitzero struct below", dfltSpec{Items: []dfltInner{{Note: "n"}}}, `"items":[{"level":2,"note":"n"}]`},
		{"omitzero struct below set", dfltSpec{Items: []dfltInner{{Box: dfltBox{Flag: new(bool)}}}}, `"items":[{"level":2,"box":{"flag":false}}]`},
		{"IsZero says absent", dfltSpec{Custom: dfltZeroer{Level: 5}}, `"zeroedDef":{"level":2,"note":"d"}}`},
		{"IsZero says present", dfltSpec{Custom: dfltZeroer{Note: "n"}}, `"custom":{"level":2,"note":"n"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkDefaulter(t, s, d, tc.in)
			got := reflect.New(reflect.TypeFor[dfltSpec]()).Elem()
			got.Set(reflect.ValueOf(tc.in))
			if _, err := d.Default(got); err != nil {
				t.Fatal(err)
			}
			if j := encodeJSON(t, got.Interface()); !bytes.Contains([]byte(j), []byte(tc.want)) {
				t.Errorf("got %s, want it to contain %s", j, tc.want)
			}
		})
	}
}

func TestDefaulterNotPlannable(t *testing.T) {
	type embedded struct {
		dfltInner
	}
	type timeDefault struct {
		When meta.Time `json:"when,omitempty" default:"\"2020-01-02T03:04:05Z\""`
	}
	type array struct {
		In [2]dfltInner `json:"in"`
	}
	type quoted struct {
		N int32 `json:"n,omitempty,string" default:"\"1\""`
	}
	tests := []struct {
		name string
		v    any
		edit func(*Schema)
	}{
		{"embedded struct", embedded{}, nil},
		{"type with its own encoding", timeDefault{}, nil},
		{"array", array{}, nil},
		{"string option", quoted{}, nil},
		{"map with properties", dflt{}, func(s *Schema) {
			s.Properties["spec"].Properties["byName"].Properties = map[string]*Schema{"a": {Type: "object"}}
		}},
		{"name differing in case", dflt{}, func(s *Schema) {
			s.Properties["Spec"] = s.Properties["spec"]
			delete(s.Properties, "spec")
		}},
		{"default that does not decode", dflt{}, func(s *Schema) {
			s.Properties["spec"].Properties["count"].Default = "many"
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := FromType(reflect.TypeOf(tc.v))
			if err != nil {
				t.Fatalf("FromType: %v", err)
			}
			if tc.edit != nil {
				tc.edit(s)
			}
			if _, err := NewDefaulter(s, reflect.TypeOf(tc.v)); !errors.Is(err, ErrNotPlannable) {
				t.Fatalf("NewDefaulter error = %v, want ErrNotPlannable", err)
			}
		})
	}
}

func TestDefaulterWidget(t *testing.T) {
	s := mustFromType(t, widget{})
	d, err := NewDefaulter(s.Properties["spec"], reflect.TypeFor[widgetSpec]())
	if err != nil {
		t.Fatal(err)
	}
	if d.Empty() {
		t.Fatal("the Widget spec has defaults")
	}
	st, err := NewDefaulter(s.Properties["status"], reflect.TypeFor[widgetStatus]())
	if err != nil || !st.Empty() {
		t.Fatalf("status: %v, empty %v; want an empty plan", err, st.Empty())
	}
	spec := widgetSpec{Ports: []widgetPort{{Name: "http", Port: 80}, {Name: "dns", Port: 53, Protocol: "UDP"}}}
	v := reflect.New(reflect.TypeFor[widgetSpec]()).Elem()
	v.Set(reflect.ValueOf(spec))
	if changed, err := d.Default(v); err != nil || !changed {
		t.Fatalf("Default = %v, %v", changed, err)
	}
	got := v.Interface().(widgetSpec)
	if *got.Replicas != 1 || got.Ports[0].Protocol != "TCP" || got.Ports[1].Protocol != "UDP" {
		t.Errorf("defaulted spec = %s", encodeJSON(t, got))
	}
	if spec.Ports[0].Protocol != "" {
		t.Error("the input's ports were written")
	}
	if _, err := d.Default(reflect.ValueOf(spec)); err == nil {
		t.Error("Default accepted a value it cannot set")
	}
}

// TestDefaulterRandom compares the plan with the JSON form on random
// values of the Widget spec and of dflt.
func TestDefaulterRandom(t *testing.T) {
	ws := mustFromType(t, widget{})
	cases := []struct {
		s  *Schema
		t  reflect.Type
		ok int // changed values expected at least
	}{
		{ws.Properties["spec"], reflect.TypeFor[widgetSpec](), 100},
		{ws.Properties["status"], reflect.TypeFor[widgetStatus](), 0},
		{dfltSchema(t).Properties["spec"], reflect.TypeFor[dfltSpec](), 100},
		{dfltSchema(t), reflect.TypeFor[*dflt](), 100},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cases {
		d, err := NewDefaulter(tc.s, tc.t)
		if err != nil {
			t.Fatal(err)
		}
		changed := 0
		for range 2000 {
			if checkDefaulter(t, tc.s, d, randomValue(r, tc.t, 0).Interface()) {
				changed++
			}
		}
		if changed < tc.ok {
			t.Errorf("%s: only %d of 2000 random values had defaults applied", tc.t, changed)
		}
	}
}

var timeType2 = reflect.TypeFor[meta.Time]()

// randomValue returns a random value of t, with nils, empty and zero
// values often.
func randomValue(r *rand.Rand, t reflect.Type, depth int) reflect.Value {
	v := reflect.New(t).Elem()
	if t == timeType2 {
		if r.IntN(2) == 0 {
			v.Set(reflect.ValueOf(meta.NewTime(time.Unix(r.Int64N(1e9), 0).UTC())))
		}
		return v
	}
	switch t.Kind() {
	case reflect.Pointer:
		if r.IntN(3) > 0 && depth < 6 {
			v.Set(randomValue(r, t.Elem(), depth+1).Addr())
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(randomValue(r, t.Field(i).Type, depth+1))
			}
		}
	case reflect.Slice:
		if n := r.IntN(4); n > 0 && depth < 6 {
			v.Set(reflect.MakeSlice(t, n-1, n-1))
			for i := range n - 1 {
				v.Index(i).Set(randomValue(r, t.Elem(), depth+1))
			}
		}
	case reflect.Map:
		if n := r.IntN(4); n > 0 && depth < 6 {
			v.Set(reflect.MakeMap(t))
			for i := range n - 1 {
				v.SetMapIndex(reflect.ValueOf(string(rune('a'+i))).Convert(t.Key()), randomValue(r, t.Elem(), depth+1))
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			v.Index(i).Set(randomValue(r, t.Elem(), depth+1))
		}
	case reflect.String:
		v.SetString([]string{"", "", "a", "TCP", "UDP"}[r.IntN(5)])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		v.SetInt([]int64{0, 0, 1, -3, 1000}[r.IntN(5)])
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
		v.SetUint(uint64(r.IntN(3)))
	case reflect.Float32, reflect.Float64:
		v.SetFloat([]float64{0, 0, 0.5, 2}[r.IntN(4)])
	}
	return v
}

// TestDefaulterDecoded: a struct tagged omitzero whose value is zero is
// defaulted as present when the JSON it was decoded from holds it (as
// kube-apiserver defaults an object sent empty), and left out otherwise,
// at the top of the value and below pointers, slices and maps; the
// outcome is that of defaulting the JSON itself.
func TestDefaulterDecoded(t *testing.T) {
	s := dfltSchema(t).Properties["spec"]
	d, err := NewDefaulter(s, reflect.TypeFor[dfltSpec]())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in  string
		hides     bool
		want      string // the JSON of the fields that matter, checked on top of the reference
		wantEqual bool   // DefaultDecoded gives what Default gives
	}{
		{"nothing sent", `{}`, true, `"zeroedDef":{"level":2,"note":"d"}}`, true},
		{"sent empty", `{"zeroed":{}}`, true, `"zeroed":{"level":2}`, false},
		{"sent with zero members", `{"zeroed":{"note":"","box":null}}`, true, `"zeroed":{"level":2}`, false},
		{"sent empty has no default of its own", `{"zeroedDef":{}}`, true, `"zeroedDef":{"level":2}}`, false},
		{"sent null", `{"zeroed":null}`, true, `"fixed":[0,0],"zeroedDef"`, true},
		{"sent set", `{"zeroed":{"note":"n","box":{"flag":false}},"zeroedDef":{"note":"x","box":{"flag":true}},"custom":{"note":"c"}}`, false,
			`"zeroed":{"level":2,"note":"n","box":{"flag":false}},"zeroedDef":{"level":2,"note":"x","box":{"flag":true}},"custom":{"level":2,"note":"c"}}`, true},
		{"below a set struct", `{"zeroed":{"note":"n","box":{}}}`, true, `"zeroed":{"level":2,"note":"n","box":{"flag":true}}`, false},
		{"below a pointer", `{"inner":{"box":{}}}`, true, `"inner":{"level":2,"box":{"flag":true}}`, false},
		{"below items", `{"items":[{"box":{}},{}]}`, true, `"items":[{"level":2,"box":{"flag":true}},{"level":2}]`, false},
		{"below map values", `{"byName":{"a":{"box":{}},"b":{}}}`, true, `"byName":{"a":{"level":2,"box":{"flag":true}},"b":{"level":2}}`, false},
		// Hides asks the type's IsZero method; defaulted, the value is
		// still zero to it, and left out.
		{"by its IsZero method", `{"custom":{"level":5}}`, true, `"zeroedDef":{"level":2,"note":"d"}}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := decodeJSON(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			decoded := reflect.New(reflect.TypeFor[dfltSpec]())
			if err := json.Unmarshal([]byte(tc.in), decoded.Interface()); err != nil {
				t.Fatal(err)
			}
			v := decoded.Elem()
			if got := d.Hides(v); got != tc.hides {
				t.Errorf("Hides = %v, want %v", got, tc.hides)
			}
			plain := reflect.New(v.Type()).Elem()
			plain.Set(v)
			if _, err := d.Default(plain); err != nil {
				t.Fatal(err)
			}
			if _, err := d.DefaultDecoded(v, x); err != nil {
				t.Fatal(err)
			}
			// The reference: the value's own JSON, with the members the
			// input sent put back, defaulted.
			ref, err := decodeJSON(encodeJSON(t, v.Interface()))
			if err != nil {
				t.Fatal(err)
			}
			for k, m := range x.(map[string]any) {
				ref.(map[string]any)[k] = m
			}
			want := defaultViaJSON(t, s, reflect.ValueOf(ref))
			got := encodeJSON(t, v.Interface())
			if w := encodeJSON(t, decodeInto(t, encodeJSON(t, want.Interface()))); got != w {
				t.Errorf("DefaultDecoded gave\n%s\nthe JSON defaulted gives\n%s", got, w)
			}
			if !bytes.Contains([]byte(got), []byte(tc.want)) {
				t.Errorf("got %s, want it to contain %s", got, tc.want)
			}
			if eq := got == encodeJSON(t, plain.Interface()); eq != tc.wantEqual {
				t.Errorf("DefaultDecoded equal to Default: %v, want %v (Default gave %s)", eq, tc.wantEqual, encodeJSON(t, plain.Interface()))
			}
		})
	}
}

// decodeInto decodes JSON into a new dfltSpec.
func decodeInto(t *testing.T, j string) dfltSpec {
	t.Helper()
	var out dfltSpec
	if err := json.Unmarshal([]byte(j), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
